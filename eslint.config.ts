import js from '@eslint/js'
import jsxA11y from 'eslint-plugin-jsx-a11y'
import reactHooks from 'eslint-plugin-react-hooks'
import type { ESLint } from 'eslint'
import { defineConfig } from 'eslint/config'
import tseslint from 'typescript-eslint'
import { noDataReplacement } from './eslint-rules/no-data-replacement.ts'

// The rules the code is held to (STYLE.md §6b): typescript-eslint's type-checked recommendations, React's hook
// rules, jsx-a11y's, and the project's own. `npm run lint` runs it; `npm test` fails on any error, naming file and line.

// typescript-eslint's rule type is narrower than ESLint's plugin type (a known mismatch of the two packages' types).
const project = { rules: { 'no-data-replacement': noDataReplacement } } as unknown as ESLint.Plugin

export default defineConfig(
  {
    ignores: [
      'node_modules/',
      'dist/',
      '.data/',
      'reports/',
      'supabase/functions/_shared/launches.json',
      'supabase/functions/send-contact-email/',
      '**/*.js',
      '**/*.mjs',
    ],
  },
  js.configs.recommended,
  tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    plugins: { project },
    rules: {
      'project/no-data-replacement': 'error',
      '@typescript-eslint/no-floating-promises': 'error',
      // `const { omitted: _omitted, ...rest } = value` is how a property is left out of a copy.
      '@typescript-eslint/no-unused-vars': ['error', { ignoreRestSiblings: true }],
      'max-lines': ['error', { max: 450, skipBlankLines: false, skipComments: false }],
      'max-lines-per-function': ['error', { max: 80, skipBlankLines: true, skipComments: true, IIFEs: true }],
    },
  },
  {
    files: ['src/**/*.tsx', 'src/**/*.ts'],
    ...reactHooks.configs.flat['recommended-latest'],
  },
  {
    files: ['src/**/*.tsx'],
    ...jsxA11y.flatConfigs.recommended,
  },
  {
    // Tests and benchmarks read as scenarios: a long `it` or `describe` is one story, not a door to split.
    files: ['tests/**', 'bench/**'],
    rules: { 'max-lines-per-function': 'off', 'max-lines': 'off' },
  },
)
