import js from '@eslint/js';
import { defineConfig } from 'eslint/config';
import globals from 'globals';
import tseslint from 'typescript-eslint';

/*
 * Rule set, chosen on this code base (strictTypeChecked found 1,895 problems, most of them style):
 * - recommendedTypeChecked: no-floating-promises, no-misused-promises, every no-unsafe-* rule,
 *   no-explicit-any, only-throw-error, unbound-method, ...;
 * - plus the strict rules that catch bugs: no-unnecessary-condition (dead branches, nullability
 *   the types deny), switch-exhaustiveness-check, return-await inside try/catch, no-deprecated,
 *   no-misused-spread, use-unknown-in-catch-callback-variable.
 * Left out: strict's style rules (no-non-null-assertion, no-confusing-void-expression, the strict
 * options of restrict-template-expressions, no-unnecessary-type-arguments/-parameters,
 * no-invalid-void-type): most of its findings here, none of them a bug. require-await is off:
 * `async` without `await` is how a function that may throw returns a rejection instead, and how
 * a fake implements an async interface.
 */
export default defineConfig(
  // Generated link types (npm run gen:proto) are checked by tsc, not held to hand-written style.
  { ignores: ['dist/**', 'test/fixtures/**', 'src/shared/link/generated/**'] },
  js.configs.recommended,
  tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      '@typescript-eslint/require-await': 'off',
      '@typescript-eslint/no-unnecessary-condition': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': ['error', { considerDefaultExhaustiveForUnions: true }],
      '@typescript-eslint/return-await': ['error', 'error-handling-correctness-only'],
      '@typescript-eslint/use-unknown-in-catch-callback-variable': 'error',
      '@typescript-eslint/no-misused-spread': 'error',
      '@typescript-eslint/no-deprecated': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true }],
    },
  },
  {
    files: ['test/**/*.ts'],
    // chai's property assertions (`expect(x).to.be.true`) are expressions by design.
    rules: { '@typescript-eslint/no-unused-expressions': 'off' },
  },
  {
    files: ['**/*.js', '**/*.cjs'],
    extends: [tseslint.configs.disableTypeChecked],
    languageOptions: { globals: globals.node },
  },
  {
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs' },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
