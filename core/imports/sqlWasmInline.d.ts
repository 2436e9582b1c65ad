/** sql.js's build with the WebAssembly inlined (the same API as `sql.js`): a bundled Lambda has no .wasm file beside it to load. */
declare module 'sql.js/dist/sql-wasm-inline.js' {
  import initSqlJs from 'sql.js';
  export default initSqlJs;
}
