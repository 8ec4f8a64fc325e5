/**
 * Two commits of one user at once (spec R40): two processes commit a changed fact from two threads
 * in one `Promise.all`, 40 rounds per language, and no value is lost: the fact ends with the value
 * stated last and the other superseded. On PostgreSQL two `UserMemoryEngine`s on two PostgresStores
 * with pools of their own (two processes), directly and through PgBouncer in transaction mode; in
 * memory two engines on one `InMemoryStore` (what two stacks of one process share, SQLite's stack
 * included: it keeps user memory in the store it is given). Before conditional writes a commit's
 * facts written and read back between the other commit's check and its write were overwritten.
 */

import { createHash } from "node:crypto";
import { InMemoryStore } from "@langchain/langgraph";
import { BaseStore, type Operation, type OperationResults } from "@langchain/langgraph-checkpoint";
import { parseKeyring, sealedKid } from "@threadwise/encryption";
import { createMemoryPool, migrate, postgresUserStore } from "@threadwise/memory";
import {
  CONDITIONAL_STORE,
  readUserItems,
  reencryptUserItems,
  resolveUserMemoryOptions,
  UserItemCodec,
  UserMemoryEngine,
  userNamespace,
} from "@threadwise/user-memory";
import type pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pgbouncerUrl, sameDatabase, skipUnlessRealPostgres } from "./fixtures/memory-postgres.js";
import { freshDatabase, testPoolMax } from "./support/postgres.js";

const ROUNDS = 40;
const CASES = [
  { lang: "en", older: "I live in Seoul.", newer: "I moved to Busan.", oldValue: "Seoul", newValue: "Busan" },
  { lang: "ko", older: "저는 서울에 살아요.", newer: "부산으로 이사했어요.", oldValue: "서울", newValue: "부산" },
] as const;
const engineOf = () => new UserMemoryEngine(resolveUserMemoryOptions({ env: {} }));

/**
 * `ROUNDS` users, each with two commits at once (thread A said first, thread B later, one per
 * store); returns the rounds whose residence fact is not `[newValue, oldValue]`, with what it held.
 */
async function race(stores: readonly [BaseStore, BaseStore], c: (typeof CASES)[number], label: string): Promise<string[]> {
  const [p, q] = [engineOf(), engineOf()];
  const lost: string[] = [];
  for (let round = 0; round < ROUNDS; round += 1) {
    const scope = { tenantId: "default", userId: `race-${label}-${c.lang}-${round}` };
    await Promise.all([
      p.commit(stores[0], scope, {
        threadId: "A",
        messages: [{ id: "a1", text: c.older }],
        saidAt: "2026-01-01T10:00:00.000Z",
        now: "2026-01-01T10:07:00.000Z",
      }),
      q.commit(stores[1], scope, {
        threadId: "B",
        messages: [{ id: "b1", text: c.newer }],
        saidAt: "2026-01-01T10:05:00.000Z",
        now: "2026-01-01T10:06:00.000Z",
      }),
    ]);
    const items = await readUserItems(stores[0], scope, new UserItemCodec(), 100);
    const facts = items.filter((item) => item.kind === "fact" && item.fact?.attribute === "residence");
    const values = facts.map((item) => [item.fact?.value, ...(item.superseded ?? []).map((v) => v.value)]);
    const messages = items.filter((item) => item.kind === "message").length;
    if (JSON.stringify(values) !== JSON.stringify([[c.newValue, c.oldValue]]) || messages !== 2)
      lost.push(`round ${round}: ${JSON.stringify(values)}, ${messages} messages`);
  }
  return lost;
}

/**
 * `store` with each call answered after 0-5 ms (a seeded sequence): a store in this process that
 * does I/O, where two commits' calls interleave as they do between processes.
 */
function withLatency(store: InMemoryStore, seed: number): BaseStore {
  let state = seed;
  const pause = () => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return new Promise((resolve) => setTimeout(resolve, (state >> 8) % 6));
  };
  return new Proxy(store, {
    get(target, name, receiver) {
      const value = Reflect.get(target, name, receiver);
      if (typeof value !== "function") return value;
      if (!["search", "batch", "get", "put", "delete"].includes(String(name))) return value.bind(target);
      return async (...args: unknown[]) => {
        await pause();
        return (value as (...a: unknown[]) => Promise<unknown>).apply(target, args);
      };
    },
  });
}

describe("two commits of one user at once, in memory (one store, two engines)", () => {
  for (const c of CASES) {
    it(`${c.lang}: ${ROUNDS} rounds of Promise.all on an InMemoryStore, no value lost`, async () => {
      const store = new InMemoryStore();
      expect(await race([store, store], c, "mem")).toEqual([]);
    });
    it(`${c.lang}: ${ROUNDS} rounds of Promise.all on an in-process store with I/O latency, no value lost`, async () => {
      const store = withLatency(new InMemoryStore(), 20261206);
      expect(await race([store, store], c, "slow")).toEqual([]);
    });
  }
});

describe.skipIf(skipUnlessRealPostgres("user memory race on PostgreSQL"))(
  "two commits of one user at once, on PostgreSQL (two processes)",
  () => {
    let db: Awaited<ReturnType<typeof freshDatabase>>;
    const pools: pg.Pool[] = [];
    beforeAll(async () => {
      db = await freshDatabase("twrace");
      await migrate({ dsn: db.url, schema: db.schema });
    });
    afterAll(async () => {
      for (const pool of pools.splice(0)) await pool.end();
      await db?.drop();
    });
    const storeOn = (url: string, mode: "direct" | "transaction" = "direct") => {
      const pool = createMemoryPool(url, { max: testPoolMax(), mode });
      pools.push(pool);
      return postgresUserStore(pool, { schema: db.schema, dsn: url, max: testPoolMax() });
    };

    for (const c of CASES) {
      it(`${c.lang}: ${ROUNDS} rounds of Promise.all on two PostgresStores, no value lost`, async () => {
        expect(await race([storeOn(db.url), storeOn(db.url)], c, "pg")).toEqual([]);
      });
      it(`${c.lang}: the same through PgBouncer in transaction mode`, async (ctx) => {
        const bouncer = pgbouncerUrl("user memory race through PgBouncer");
        if (!bouncer) return ctx.skip();
        const url = sameDatabase(bouncer, db.url);
        expect(await race([storeOn(url, "transaction"), storeOn(url, "transaction")], c, "bouncer")).toEqual([]);
      });
    }
    // Recognised by its core, not its class name: a subclass (was: the old guard and its window),
    // and a wrapper that names the PostgresStore it writes through.
    it("a subclass of PostgresStore and a wrapper naming its PostgresStore: no value lost (en, ko)", async () => {
      const subclassed = () => {
        const store = storeOn(db.url);
        class TenantStore extends (store.constructor as new (...args: never[]) => object) {}
        Object.setPrototypeOf(store, TenantStore.prototype);
        return store;
      };
      class Wrapper extends BaseStore {
        constructor(readonly inner: BaseStore) {
          super();
          (this as unknown as Record<symbol, unknown>)[CONDITIONAL_STORE] = inner;
        }
        batch<Op extends Operation[]>(operations: Op): Promise<OperationResults<Op>> {
          return this.inner.batch(operations);
        }
      }
      for (const c of CASES) {
        expect(await race([subclassed(), subclassed()], c, "pg-subclass")).toEqual([]);
        expect(await race([new Wrapper(storeOn(db.url)), new Wrapper(storeOn(db.url))], c, "pg-wrapped")).toEqual([]);
      }
    });
    // A conditional write past `timeoutMs` is not cancelled: the caller sees the timeout and the
    // transaction may still commit. Its writes are conditional, so it cannot land over a newer
    // value, and the caller's retry plans over whatever it left.
    it("a timed-out conditional write that commits later: the caller sees the timeout, a newer commit and the retry keep the newer value (en, ko)", async () => {
      for (const c of CASES) {
        const scope = { tenantId: "default", userId: `timeout-${c.lang}` };
        const slow = storeOn(db.url);
        const core = (slow as unknown as { core: { pool: pg.Pool } }).core;
        // Process P's COMMIT is held (its INSERT already done) until process Q's INSERT of the same key is sent.
        let releaseCommit!: () => void;
        const held = new Promise<void>((resolve) => {
          releaseCommit = resolve;
        });
        let holding = true;
        const pool = core.pool;
        core.pool = new Proxy(pool, {
          get(target, name) {
            if (name !== "connect") return Reflect.get(target, name, target);
            return async () => {
              const client = await target.connect();
              return new Proxy(client, {
                get(t, n) {
                  if (n !== "query") return Reflect.get(t, n, t);
                  return async (text: string, values?: unknown[]) => {
                    if (holding && text === "COMMIT") {
                      holding = false;
                      await held;
                    }
                    return t.query(text, values);
                  };
                },
              });
            };
          },
        }) as pg.Pool;
        const p = new UserMemoryEngine(resolveUserMemoryOptions({ timeoutMs: 3000, env: {} }));
        const older = {
          threadId: "A",
          messages: [{ id: "a1", text: c.older }],
          saidAt: "2026-01-01T10:00:00.000Z",
          now: "2026-01-01T10:07:00.000Z",
        };
        await expect(p.commit(slow, scope, older)).rejects.toMatchObject({ code: "THREADWISE_TIMEOUT" });
        // Q commits the newer statement: its INSERT waits on P's row; P's COMMIT goes once it is sent.
        const other = storeOn(db.url);
        const otherCore = (other as unknown as { core: { pool: pg.Pool } }).core;
        const otherPool = otherCore.pool;
        otherCore.pool = new Proxy(otherPool, {
          get(target, name) {
            if (name !== "connect") return Reflect.get(target, name, target);
            return async () => {
              const client = await target.connect();
              return new Proxy(client, {
                get(t, n) {
                  if (n !== "query") return Reflect.get(t, n, t);
                  return (text: string, values?: unknown[]) => {
                    const sent = t.query(text, values);
                    if (text.startsWith("INSERT")) releaseCommit();
                    return sent;
                  };
                },
              });
            };
          },
        }) as pg.Pool;
        await engineOf().commit(other, scope, {
          threadId: "B",
          messages: [{ id: "b1", text: c.newer }],
          saidAt: "2026-01-01T10:05:00.000Z",
          now: "2026-01-01T10:08:00.000Z",
        });
        expect(holding).toBe(false);
        const values = async () => {
          const items = await readUserItems(other, scope, new UserItemCodec(), 100);
          const fact = items.filter((item) => item.kind === "fact" && item.fact?.attribute === "residence");
          return fact.map((item) => [item.fact?.value, ...(item.superseded ?? []).map((v) => v.value)]);
        };
        // P's timed-out write committed (Q planned over it: the older value is superseded, not lost).
        expect(await values()).toEqual([[c.newValue, c.oldValue]]);
        // The caller's retry of the timed-out commit writes no older value over the newer one.
        await p.commit(slow, scope, older);
        expect(await values()).toEqual([[c.newValue, c.oldValue]]);
        const messages = (await readUserItems(other, scope, new UserItemCodec(), 100)).filter((item) => item.kind === "message");
        expect(messages.map((item) => item.messageId).sort()).toEqual(["a1", "b1"]);
      }
    });
    // A turn's messages and its thread's digest were plain puts after the facts' conditional write:
    // a put past `timeoutMs` still lands, after the caller's retry and a newer turn of the thread,
    // and put the older message text and digest back. They are conditional writes now, with the
    // facts: compared with what the commit read, they write nothing over a newer value.
    it("a turn's timed-out message and digest writes that land after its retry and a newer turn write no older text back (en, ko; direct and through PgBouncer)", async () => {
      const TURNS = [
        {
          lang: "en",
          first: "My sister's wedding is in Daegu, HOLD1.",
          firstDigest: "Planning the trip to the wedding, HOLD1.",
          edited: "My sister's wedding is in Gyeongju, not Daegu.",
          second: "Can you book a hotel near the venue?",
          secondDigest: "Planning the trip to the wedding in Gyeongju; a hotel near the venue.",
        },
        {
          lang: "ko",
          first: "언니 결혼식은 대구에서 해요, HOLD1.",
          firstDigest: "결혼식 여행 계획, HOLD1.",
          edited: "언니 결혼식은 대구가 아니라 경주에서 해요.",
          second: "식장 근처 호텔을 예약해 줄래요?",
          secondDigest: "경주 결혼식 여행 계획과 식장 근처 호텔.",
        },
      ] as const;
      const bouncer = pgbouncerUrl("user memory digest writes through PgBouncer");
      const routes = [
        { label: "direct", url: db.url, mode: "direct" as const },
        ...(bouncer ? [{ label: "bouncer", url: sameDatabase(bouncer, db.url), mode: "transaction" as const }] : []),
      ];
      for (const route of routes)
        for (const t of TURNS) {
          const scope = { tenantId: "default", userId: `late-put-${route.label}-${t.lang}` };
          // Process P's store: a statement carrying turn 1's words waits, unsent, until `release`;
          // `landed` settles when every connection that held one is released (its write done).
          const slow = storeOn(route.url, route.mode);
          const core = (slow as unknown as { core: { pool: pg.Pool } }).core;
          let release!: () => void;
          const gate = new Promise<void>((resolve) => {
            release = resolve;
          });
          const releasedClients: Promise<void>[] = [];
          const pool = core.pool;
          core.pool = new Proxy(pool, {
            get(target, name) {
              if (name !== "connect") return Reflect.get(target, name, target);
              return async () => {
                const client = await target.connect();
                let held = false;
                let released!: () => void;
                const done = new Promise<void>((resolve) => {
                  released = resolve;
                });
                return new Proxy(client, {
                  get(c, n) {
                    if (n === "release")
                      return (error?: Error | boolean) => {
                        c.release(error);
                        released();
                      };
                    if (n !== "query") return Reflect.get(c, n, c);
                    return async (text: string, values?: unknown[]) => {
                      if (JSON.stringify(values ?? []).includes("HOLD1")) {
                        if (!held) releasedClients.push(done);
                        held = true;
                        await gate;
                      }
                      return c.query(text, values);
                    };
                  },
                });
              };
            },
          }) as pg.Pool;
          const p = new UserMemoryEngine(resolveUserMemoryOptions({ timeoutMs: 1500, factsMode: "off", env: {} }));
          const q = new UserMemoryEngine(resolveUserMemoryOptions({ factsMode: "off", env: {} }));
          const turn1 = { threadId: "A", messages: [{ id: "a1", text: t.first }], digest: t.firstDigest, now: "2026-01-01T10:00:00.000Z" };
          await expect(p.commit(slow, scope, turn1)).rejects.toMatchObject({ code: "THREADWISE_TIMEOUT" });
          expect(releasedClients.length).toBeGreaterThan(0);
          // The caller retries turn 1 (another process), then the thread's next turn edits a1 and moves the digest on.
          const fast = storeOn(route.url, route.mode);
          await q.commit(fast, scope, { ...turn1, now: "2026-01-01T10:00:05.000Z" });
          await q.commit(fast, scope, {
            threadId: "A",
            messages: [
              { id: "a1", text: t.edited },
              { id: "a2", text: t.second },
            ],
            digest: t.secondDigest,
            now: "2026-01-01T10:05:00.000Z",
          });
          // Turn 1's timed-out writes go now, and finish.
          release();
          await Promise.all(releasedClients);
          const items = await readUserItems(fast, scope, new UserItemCodec(), 100);
          const text = (kind: string, id: string | null) => items.find((item) => item.kind === kind && item.messageId === id)?.text;
          expect({ route: route.label, a1: text("message", "a1"), a2: text("message", "a2"), digest: text("digest", null) }).toEqual({
            route: route.label,
            a1: t.edited,
            a2: t.second,
            digest: t.secondDigest,
          });
        }
    });
    it("reencryptUserItems with a commit between its read and its write: the commit's value is re-sealed, not overwritten with the older one (en, ko)", async () => {
      const ring = (active: string, kids: string[]) =>
        parseKeyring(
          JSON.stringify({
            version: 1,
            active_kid: active,
            keys: Object.fromEntries(kids.map((kid) => [kid, createHash("sha256").update(`race-${kid}`).digest("base64")])),
          }),
          "race-keyring",
        );
      const [k1, k2] = [ring("k1", ["k1"]), ring("k2", ["k1", "k2"])];
      const oldProcess = new UserMemoryEngine(resolveUserMemoryOptions({ keyring: k1, env: {} }));
      for (const c of CASES) {
        const scope = { tenantId: "default", userId: `reseal-${c.lang}` };
        const store = storeOn(db.url);
        await oldProcess.commit(store, scope, { threadId: "A", messages: [{ id: "a1", text: c.older }], now: "2026-01-01T10:00:00.000Z" });
        // A process still on the old keyring commits the changed fact right after the re-seal read the page.
        let moved = false;
        const racing = new Proxy(store, {
          get(target, name, receiver) {
            const value = Reflect.get(target, name, receiver);
            if (name !== "search") return typeof value === "function" && name !== "constructor" ? value.bind(target) : value;
            return async (...args: Parameters<typeof store.search>) => {
              const page = await target.search(...args);
              if (!moved && JSON.stringify(args[0]) === JSON.stringify(userNamespace(scope))) {
                moved = true;
                await oldProcess.commit(target, scope, {
                  threadId: "B",
                  messages: [{ id: "b1", text: c.newer }],
                  now: "2026-01-01T10:05:00.000Z",
                });
              }
              return page;
            };
          },
        });
        const codec = new UserItemCodec({ keyring: k2, agentId: "default", principalId: "default" });
        await reencryptUserItems(racing, codec, { tenantLabel: userNamespace(scope)[3] });
        expect(moved).toBe(true);
        const items = await readUserItems(store, scope, codec, 100);
        const fact = items.find((item) => item.kind === "fact" && item.fact?.attribute === "residence");
        expect([fact?.fact?.value, ...(fact?.superseded ?? []).map((v) => v.value)]).toEqual([c.newValue, c.oldValue]);
        // The fact the commit rewrote is on the new kid (a new item it added after the page was read is
        // the old process's own: every process takes the new keyring before the re-seal).
        const stored = await store.get(userNamespace(scope), fact?.key as string);
        expect(sealedKid((stored?.value as { sealed?: unknown } | undefined)?.sealed)).toBe("k2");
      }
    });
  },
);
