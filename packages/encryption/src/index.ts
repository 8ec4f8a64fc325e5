export { EncryptedCheckpointSaver, encryptCheckpointer } from "./encrypted-checkpointer.js";
export { EncryptedSerializer, encryptedSerializer, SERIALIZER_SCOPE } from "./encrypted-serializer.js";
export {
  DEFAULT_IDENTITY,
  type EncryptionOptions,
  encryptionOptionsSchema,
  keyringOptionSchema,
  PRINCIPAL_ID_ENV,
  resolveCipher,
  TENANT_ENV,
} from "./encryption-options.js";
export {
  type DecryptionProblem,
  type KeyringProblem,
  type StrictModeRequirement,
  ThreadwiseAgentMismatchError,
  ThreadwiseDecryptionError,
  ThreadwiseKeyringError,
  ThreadwiseReencryptError,
  ThreadwiseStrictModeError,
} from "./errors.js";
export { addToNearestGitignore } from "./gitignore.js";
export {
  createKeyring,
  isKeyring,
  KEYRING_ENV,
  KEYRING_VERSION,
  Keyring,
  type KeyringFile,
  type KeyringWriteResult,
  KID_PATTERN,
  loadKeyring,
  parseKeyring,
  ROOT_KEY_BYTES,
  retireKey,
  rotateKeyring,
} from "./keyring.js";
export {
  CODEC_VERSION,
  isSealed,
  RecordCipher,
  type RecordCipherIdentity,
  type RecordLocation,
  type RecordPurpose,
  SEALED_PREFIX,
  sealedKid,
} from "./record-cipher.js";
export { channelValueRecordId, metadataRecordId, pendingWriteRecordId } from "./record-ids.js";
export { PLAINTEXT_RECORDS_KEY, type ReencryptOptions, type ReencryptProgress, type ReencryptResult, reencrypt } from "./reencrypt.js";
export { SEALED_METADATA_KEY } from "./sealed-metadata.js";
export {
  assertStrictMode,
  BACKEND_ENV,
  checkStrictMode,
  RETENTION_DAYS_ENV,
  STRICT_MODE_ENV,
  type StrictModeInput,
  type StrictModeReport,
} from "./strict-mode.js";
