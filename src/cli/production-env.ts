// The first import of the entries that build or serve pages (npm start, npm run build): React picks its development
// or production build when it is first loaded, and several parts load it (the prerenderer, the form validator's
// compiler, the studio's preview), so it must be production before any of them is imported. A NODE_ENV set by
// the caller (a test runner's "test") is kept: then every part loads the same build too.
process.env.NODE_ENV ??= 'production'
