// The notebook app's third-party libraries, bundled by esbuild into build/vendor.js (see
// py/webtorch_devtools/notebook_app.py: build_bundle); all pinned in package.json, nothing from a CDN.
// KaTeX's stylesheet and fonts are copied beside the bundle.
export { EditorView, keymap, drawSelection, placeholder } from "@codemirror/view";
export { EditorState, Prec } from "@codemirror/state";
export { defaultKeymap, history, historyKeymap, indentWithTab } from "@codemirror/commands";
export { indentOnInput, bracketMatching, syntaxHighlighting, defaultHighlightStyle, indentUnit } from "@codemirror/language";
export { autocompletion, closeBrackets, closeBracketsKeymap, completionStatus, startCompletion } from "@codemirror/autocomplete";
export { python } from "@codemirror/lang-python";
export { default as MarkdownIt } from "markdown-it";
export { default as uPlot } from "uplot";
export { default as katex } from "katex";
export { default as DOMPurify } from "dompurify";
