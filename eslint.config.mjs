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
      'console/build/',
      'test-output/',
      'eslint.config.mjs',
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
    // Plugins see core only through its kit (core/kit), so core can change behind it.
    files: ['plugins/**/*.ts'],
    ignores: ['plugins/index.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/core/**', '!**/core/kit'],
              message: 'A plugin imports core only through core/kit.',
            },
          ],
        },
      ],
    },
  },
  {
    // Core never reaches into a plugin; the entry point only loads them (plugins/index.ts).
    files: ['core/**/*.ts'],
    ignores: ['core/main.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          // core/plugins/ is core's plugin machinery; the plugins themselves are the folders below.
          paths: ['../plugins', '../../plugins', '../../../plugins'].map((name) => ({
            name,
            message: 'Core does not import plugins.',
          })),
          patterns: [
            {
              group: ['apis', 'upstreams', 'video-protocols', 'middleware', 'index'].map(
                (folder) => `**/plugins/${folder}`,
              ),
              message: 'Core does not import plugins.',
            },
          ],
        },
      ],
    },
  },
  {
    // lib/ holds small libraries that know nothing of the product, so core and the simulator can both use them.
    files: ['lib/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['core', 'simulator', 'plugins', 'config', 'cli'].flatMap((dir) => [
                `**/${dir}`,
                `**/${dir}/**`,
              ]),
              message: 'lib/ imports nothing of the product.',
            },
          ],
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
