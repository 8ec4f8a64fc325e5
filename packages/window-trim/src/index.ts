export {
  DEFAULT_WINDOW_SIZE,
  resolveWindowTrimOptions,
  selectWindow,
  WINDOW_SIZE_ENV,
  type WindowTrimOptions,
  type WindowTrimSettings,
  windowTrim,
  windowTrimOptionsSchema,
} from "./window-trim.js";
