import { describe, expect, it } from "vitest";
import { resolveMemoryConfig } from "./config.js";
import { dsnSecrets, redactConfig, redactDsn, redactSecrets } from "./redact.js";

describe("redactDsn (R25)", () => {
  it("masks the password of URL DSNs and keeps everything else", () => {
    expect(redactDsn("postgresql://app:s3cret@db:5432/app_memory")).toBe("postgresql://app:***@db:5432/app_memory");
    expect(redactDsn("postgres://app:p%40ss@db/app?sslmode=require")).toBe("postgres://app:***@db/app?sslmode=require");
    expect(redactDsn("postgresql://db/app?user=a&password=hunter2")).toBe("postgresql://db/app?user=a&password=***");
    expect(redactDsn("postgresql://app@db/app")).toBe("postgresql://app@db/app");
  });

  it("masks key/value DSNs", () => {
    expect(redactDsn("host=db user=app password=hunter2 dbname=x")).toBe("host=db user=app password=*** dbname=x");
    expect(redactDsn("host=db password='a b c' dbname=x")).toBe("host=db password=*** dbname=x");
  });

  it("finds secrets to scrub from free text, encoded and decoded", () => {
    expect(dsnSecrets("postgresql://app:p%40ss@db/app")).toEqual(["p%40ss", "p@ss"]);
    const text = 'connect failed for "postgresql://app:p@ss@db/app" (p%40ss)';
    expect(redactSecrets(text, dsnSecrets("postgresql://app:p%40ss@db/app"))).toBe(
      'connect failed for "postgresql://app:***@db/app" (***)',
    );
  });

  it("redactConfig shows no DSN password and no key material", () => {
    const config = resolveMemoryConfig(
      { backend: "postgres", postgresDsn: "postgresql://app:TOPSECRET@db/app", keyringPath: "/k.json" },
      {},
    );
    const dump = JSON.stringify(redactConfig({ ...config, apiKey: "sk-123", nested: { url: "postgresql://u:TOPSECRET@h/d" } }));
    expect(dump).not.toContain("TOPSECRET");
    expect(dump).not.toContain("sk-123");
    expect(dump).toContain("postgresql://app:***@db/app");
    expect(dump).toContain("/k.json");
  });
});
