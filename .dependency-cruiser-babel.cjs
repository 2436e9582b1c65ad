/**
 * Babel config dependency-cruiser reads TypeScript through. Its TypeScript parser needs the
 * `typescript` package below version 7, and this project compiles with TypeScript 7, so instead
 * Babel parses each file (the syntax plugin only, no transform) and the program is reduced to
 * its module specifiers: static, type-only, re-exports, `import()` and `import('x').T` alike.
 * Every one counts as a dependency, so a type-only import across layers is a violation too.
 */
'use strict';

function keepOnlyImports({ types: t }) {
  return {
    visitor: {
      Program(program) {
        const specifiers = [];
        const add = (node) => {
          if (node && t.isStringLiteral(node)) specifiers.push(node.value);
        };
        program.traverse({
          ImportDeclaration: (path) => add(path.node.source),
          ExportNamedDeclaration: (path) => add(path.node.source),
          ExportAllDeclaration: (path) => add(path.node.source),
          CallExpression: (path) => {
            if (t.isImport(path.node.callee)) add(path.node.arguments[0]);
          },
          ImportExpression: (path) => add(path.node.source),
          TSImportType: (path) => add(path.node.argument.literal ?? path.node.argument),
        });
        program.node.body = specifiers.map((s) => t.importDeclaration([], t.stringLiteral(s)));
        program.node.directives = [];
      },
    },
  };
}

/** JSX only in .tsx: in a .ts file `<T>x` is a type assertion. */
function jsxInTsx() {
  return {
    manipulateOptions(opts, parserOpts) {
      if (typeof opts.filename === 'string' && opts.filename.endsWith('.tsx')) parserOpts.plugins.push('jsx');
    },
  };
}

module.exports = {
  babelrc: false,
  configFile: false,
  plugins: [['@babel/plugin-syntax-typescript', {}], jsxInTsx, keepOnlyImports],
};
