import { normalizeUserId, ThreadwiseConfigError } from "@threadwise/core";

/** Whose memory a run reads and writes: one user under one tenant (spec R40). */
export interface UserScope {
  /** Tenant the user belongs to; part of the namespace and of the sealing key. */
  tenantId: string;
  /** The user (resource) id, checked by core's `normalizeUserId` (the thread-id rules). */
  userId: string;
}

/** Key of the user id in the run's `context` or `configurable`: LangGraph's convention (`config.configurable.user_id`). */
export const DEFAULT_USER_ID_KEY = "user_id";
/** Key of the tenant id in the run's `context` or `configurable`. */
export const DEFAULT_TENANT_ID_KEY = "tenant_id";
/** Tenant of a run that names none, unless `tenantId` or env `THREADWISE_MEMORY_TENANT_ID` says otherwise. */
export const DEFAULT_TENANT_ID = "default";

/** First label of every user-memory namespace. */
export const NAMESPACE_ROOT = ["threadwise", "user-memory", "v1"] as const;
/** Last label: a fixed end, so a namespace-prefix search for user `u1` can never reach user `u10`'s namespace. */
export const NAMESPACE_LEAF = "items";

/** What {@link resolveUserScope} reads. */
export interface ScopeSource {
  context?: unknown;
  configurable?: unknown;
}

function read(source: unknown, key: string): unknown {
  return typeof source === "object" && source !== null ? (source as Record<string, unknown>)[key] : undefined;
}

/** A value from `context` (LangGraph v1's run context) or `configurable`; both set and different is refused. */
function pick(runtime: ScopeSource, key: string): { value: unknown; field: string } | undefined {
  const fromContext = read(runtime.context, key);
  const fromConfigurable = read(runtime.configurable, key);
  if (fromContext !== undefined && fromContext !== null) {
    if (fromConfigurable !== undefined && fromConfigurable !== null && fromConfigurable !== fromContext)
      throw new ThreadwiseConfigError(
        `context.${key}`,
        `differs from configurable.${key}; a run must name one ${key} (give it in one place, or the same value in both)`,
      );
    return { value: fromContext, field: `context.${key}` };
  }
  if (fromConfigurable !== undefined && fromConfigurable !== null) return { value: fromConfigurable, field: `configurable.${key}` };
  return undefined;
}

/**
 * The user and tenant of a run (spec R40): `context[userIdKey]`, else `configurable[userIdKey]`
 * (LangGraph's convention is `configurable.user_id`; with `createAgent({ contextSchema })` pass it
 * in `context`). The tenant likewise from `tenantIdKey`, else `defaultTenantId`. Returns
 * `undefined` when the run names no user: that run has no cross-thread memory (never a shared
 * bucket).
 *
 * @throws ThreadwiseUserIdError when the user id breaks the thread-id rules (not a string, empty,
 *   NUL, lone surrogate, over 256 bytes), naming the field; the same for a tenant id.
 * @throws ThreadwiseConfigError when `context` and `configurable` name different users.
 */
export function resolveUserScope(
  runtime: ScopeSource | undefined,
  options: { userIdKey: string; tenantIdKey: string; defaultTenantId: string },
): UserScope | undefined {
  if (!runtime) return undefined;
  const user = pick(runtime, options.userIdKey);
  if (!user) return undefined;
  const userId = normalizeUserId(user.value, user.field);
  const tenant = pick(runtime, options.tenantIdKey);
  const tenantId = tenant ? normalizeUserId(tenant.value, tenant.field) : options.defaultTenantId;
  return { tenantId, userId };
}

/**
 * Fields of the run's `configurable` whose key is `key` but for case, `_` and `-` (`userId`,
 * `UserID`, `user-id` for `user_id`), as `configurable.<key>`: a run that names its user under one
 * of them has no user memory, and the warning says which it saw. (`context` is not searched:
 * LangChain hands a middleware only the context keys it declares.)
 */
export function nearMissFields(runtime: ScopeSource | undefined, key: string): string[] {
  const fold = (name: string) => name.toLowerCase().replace(/[_-]/g, "");
  const source = runtime?.configurable;
  if (typeof source !== "object" || source === null) return [];
  return Object.keys(source)
    .filter((name) => name !== key && fold(name) === fold(key))
    .map((name) => `configurable.${name}`);
}

/**
 * One namespace label from an id, injective and safe for every `BaseStore`: letters, digits and
 * `-` are kept, every other UTF-8 byte is written `~XX` (upper-case hex). No `.`, `:` (LangGraph
 * refuses them in labels), `%`, `_` or `\` (PostgresStore's namespace-prefix search is a SQL
 * `LIKE`, where they are wildcards) can appear.
 *
 * @example
 * namespaceLabel("user-42");    // "user-42"
 * namespaceLabel("a.b:c");      // "a~2Eb~3Ac"
 */
export function namespaceLabel(id: string): string {
  let out = "";
  for (const byte of Buffer.from(id, "utf8")) {
    const c = String.fromCharCode(byte);
    out += /[A-Za-z0-9-]/.test(c) ? c : `~${byte.toString(16).toUpperCase().padStart(2, "0")}`;
  }
  return out;
}

/**
 * The id a {@link namespaceLabel} was made from (its inverse); `undefined` for a label no id gives.
 * @example
 * idOfLabel("a~2Eb~3Ac"); // "a.b:c"
 */
export function idOfLabel(label: string): string | undefined {
  const bytes: number[] = [];
  for (let i = 0; i < label.length; ) {
    const c = label[i] as string;
    if (c === "~") {
      const hex = label.slice(i + 1, i + 3);
      if (!/^[0-9A-F]{2}$/.test(hex)) return undefined;
      bytes.push(Number.parseInt(hex, 16));
      i += 3;
    } else if (/[A-Za-z0-9-]/.test(c)) {
      bytes.push(c.charCodeAt(0));
      i += 1;
    } else return undefined;
  }
  const id = Buffer.from(bytes).toString("utf8");
  return namespaceLabel(id) === label ? id : undefined;
}

/** The store namespace of one user's memory: `["threadwise", "user-memory", "v1", <tenant>, <user>, "items"]`. */
export function userNamespace(scope: UserScope): string[] {
  return [...NAMESPACE_ROOT, namespaceLabel(scope.tenantId), namespaceLabel(scope.userId), NAMESPACE_LEAF];
}

/** `true` when `namespace` is exactly `scope`'s (a search result is checked with it before use). */
export function isUserNamespace(namespace: readonly string[], scope: UserScope): boolean {
  const expected = userNamespace(scope);
  return namespace.length === expected.length && namespace.every((label, i) => label === expected[i]);
}
