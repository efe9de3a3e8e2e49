// The two DOM shorthands every module of the app uses.

/** The element with this id. */
export const $ = (id) => document.getElementById(id);

/** A new `tag` element with class `cls` and text `text` (both optional). */
export function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}
