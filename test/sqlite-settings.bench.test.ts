/**
 * bench/replay-cost.ts `--wal-autocheckpoint` and `--sqlite-synchronous`: every SQLite lane's
 * connection gets the settings before any write (diagnostics of SQLite's automatic checkpoint and
 * its syncs), the defaults stay the connection's when they are not given, and a bad value is
 * refused naming its option.
 */
import type Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { sqliteSettingsOf, sqliteTarget } from "../bench/support/step-savers.js";

/** The target's connection's two settings, as SQLite reports them (`synchronous`: 0 OFF, 1 NORMAL, 2 FULL, 3 EXTRA). */
async function settingsOf(settings?: Parameters<typeof sqliteTarget>[0]): Promise<{ pages: number; synchronous: number }> {
  const target = await sqliteTarget(settings);
  try {
    const db = (target.saver as unknown as { db: Database.Database }).db;
    return {
      pages: db.pragma("wal_autocheckpoint", { simple: true }) as number,
      synchronous: db.pragma("synchronous", { simple: true }) as number,
    };
  } finally {
    await target.close();
  }
}

describe("SQLite lane settings (replay-cost --wal-autocheckpoint, --sqlite-synchronous)", () => {
  it("sets both on the lane's connection; unset, the connection keeps 1000 pages and FULL", async () => {
    // A fresh file that its connection switches to WAL keeps SQLite's FULL (a connection opening a
    // file already in WAL gets better-sqlite3's DEFAULT_WAL_SYNCHRONOUS, NORMAL).
    expect(await settingsOf()).toEqual({ pages: 1000, synchronous: 2 });
    expect(await settingsOf({ settings: sqliteSettingsOf({ walAutocheckpoint: "4000", synchronous: "off" }) })).toEqual({
      pages: 4000,
      synchronous: 0,
    });
    expect(await settingsOf({ settings: sqliteSettingsOf({ walAutocheckpoint: "0" }) })).toEqual({ pages: 0, synchronous: 2 });
    expect(await settingsOf({ settings: sqliteSettingsOf({ synchronous: "normal" }) })).toEqual({ pages: 1000, synchronous: 1 });
    expect(await settingsOf({ settings: sqliteSettingsOf({ synchronous: "FULL" }) })).toEqual({ pages: 1000, synchronous: 2 });
  });

  it("reads the options' strings; refuses a bad value naming its option", () => {
    expect(sqliteSettingsOf({})).toEqual({});
    expect(sqliteSettingsOf({ walAutocheckpoint: "250", synchronous: "Extra" })).toEqual({ walAutocheckpoint: 250, synchronous: "EXTRA" });
    for (const pages of ["", " ", "-1", "1.5", "1e400", "many", "천"])
      expect(() => sqliteSettingsOf({ walAutocheckpoint: pages })).toThrow(/^--wal-autocheckpoint: must be a whole number/);
    for (const mode of ["", "2", "sometimes", "끄기"])
      expect(() => sqliteSettingsOf({ synchronous: mode })).toThrow(/^--sqlite-synchronous: must be one of OFF, NORMAL, FULL, EXTRA/);
  });
});
