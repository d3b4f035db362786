// Lint the TypeScript sources with type information; compiled output is not linted.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      'dist/',
      'node_modules/',
      'data/',
      '.tap/',
      'test-output/',
      'eslint.config.mjs',
      '.dependency-cruiser.cjs',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
    },
  },
  {
    // Small functions in the product's code: none over 100 lines, its blank lines and comments counted.
    files: ['core/**/*.ts', 'plugins/**/*.ts', 'lib/**/*.ts', 'config/**/*.ts'],
    rules: {
      'max-lines-per-function': [
        'error',
        { max: 100, skipBlankLines: false, skipComments: false, IIFEs: true },
      ],
    },
  },
  {
    // The plugin contract stays small enough to learn: one file per kind of plugin, none over 200 lines.
    files: ['core/contracts/**/*.ts'],
    rules: { 'max-lines': ['error', { max: 200, skipBlankLines: false, skipComments: false }] },
  },
  {
    // The launcher of the compiled code (plain CommonJS: it runs when dist/ is missing).
    files: ['scripts/**/*.js'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: {
      ...tseslint.configs.disableTypeChecked.languageOptions,
      sourceType: 'commonjs',
      globals: { require: 'readonly', process: 'readonly', __dirname: 'readonly' },
    },
    rules: { ...tseslint.configs.disableTypeChecked.rules, '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    // The console's bundle and type-check include the wire types: only types, and no imports, so the
    // browser takes nothing else from the server.
    files: ['core/admin/wire.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector:
            'Program > :not(TSInterfaceDeclaration, TSTypeAliasDeclaration, ExportNamedDeclaration[source=null][declaration.type=/^TS(Interface|TypeAlias)Declaration$/])',
          message: 'core/admin/wire.ts holds exported types and interfaces only, and imports nothing.',
        },
      ],
    },
  },
  {
    files: ['test/**/*.ts', 'bench/**/*.ts'],
    rules: {
      // tap's t.test() returns a promise that tap itself awaits.
      '@typescript-eslint/no-floating-promises': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
    },
  },
);
