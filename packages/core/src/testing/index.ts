/**
 * Test helpers shared by threadwise packages and by users testing their own agents:
 * `@threadwise/core/testing`. Offline and deterministic.
 */
export { CLIENT_TEXT_FORMS, type ClientTextForm, isCharacterHead } from "./client-text.js";
export {
  characterTokenCounter,
  FAKE_MODEL_PROVIDERS,
  type FakeModelOptions,
  type RecordedAssistantTurn,
  type RepeatedCallIdScript,
  receivedRequestTokens,
  repeatedCallIdModel,
  replayModel,
  scriptedModel,
  strictModel,
} from "./fake-models.js";
export {
  assertProviderRequest,
  PROVIDER_RULES,
  PROVIDERS,
  type Provider,
  type ProviderCheckOptions,
  ProviderRequestError,
  type ProviderRule,
  type ProviderViolation,
  validateProviderRequest,
} from "./provider-validator.js";
export {
  ProviderLog,
  type ProviderRejection,
  providerProbe,
  requestInput,
  type StrictFakeModel,
  type StrictModelOptions,
  withProviderCheck,
} from "./strict-model.js";
