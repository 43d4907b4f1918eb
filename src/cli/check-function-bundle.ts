import { missingFunctionBundle } from '../build/function-bundle.ts'

// Run before `deno run` of the function (npm run edge:serve): Deno's own word for a missing bundle is a bare
// "Module not found".
const problem = missingFunctionBundle()
if (problem) {
  console.error(problem)
  process.exit(1)
}
