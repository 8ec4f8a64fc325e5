import Database from "better-sqlite3";
import { SqliteThreadRegistry } from "./packages/memory/src/sqlite-thread-registry.ts";
const db = new Database(process.argv[2]);
new SqliteThreadRegistry(db);
db.close();
