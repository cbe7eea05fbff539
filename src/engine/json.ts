/** Checks on parsed JSON values, shared by the rule evaluator and the modules that read JSON input. */

/** An object literal (or `Object.create(null)`): not an array, a Date or a class instance. */
export function isPlainObject(v: unknown): v is Record<string, unknown> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v);
  return proto === null || proto === Object.prototype;
}
