import { AST_NODE_TYPES, ESLintUtils, type TSESTree } from '@typescript-eslint/utils'

/**
 * No `String.prototype.replace`/`replaceAll` whose replacement is a string built from data: such a string's `$&`,
 * `` $` ``, `$'` and `$n` are expanded, so a config text or a visitor's words ending in `` $` `` paste the
 * template around them into the result. A literal string (written by us) and a function (whose return value is used
 * as it is) are safe.
 */
export const noDataReplacement = ESLintUtils.RuleCreator.withoutDocs({
  meta: {
    type: 'problem',
    messages: {
      dataReplacement:
        "'{{method}}' with a replacement string built from data expands its $ patterns ($&, $`, $', $1): pass a " +
        'function instead, e.g. `.{{method}}(pattern, () => value)`.',
    },
    schema: [],
  },
  defaultOptions: [],
  create(context) {
    const services = ESLintUtils.getParserServices(context)
    const checker = services.program.getTypeChecker()
    return {
      CallExpression(node: TSESTree.CallExpression) {
        const callee = node.callee
        if (
          callee.type !== AST_NODE_TYPES.MemberExpression ||
          callee.computed ||
          callee.property.type !== AST_NODE_TYPES.Identifier
        )
          return
        const method = callee.property.name
        if ((method !== 'replace' && method !== 'replaceAll') || node.arguments.length < 2) return
        const receiver = checker.getTypeAtLocation(services.esTreeNodeToTSNodeMap.get(callee.object))
        if (!isStringLike(checker.getApparentType(receiver))) return
        const replacement = node.arguments[1]!
        if (isLiteralString(replacement)) return
        const type = checker.getTypeAtLocation(services.esTreeNodeToTSNodeMap.get(replacement))
        if (type.getCallSignatures().length > 0) return
        context.report({ node: replacement, messageId: 'dataReplacement', data: { method } })
      },
    }
  },
})

function isLiteralString(node: TSESTree.Node): boolean {
  if (node.type === AST_NODE_TYPES.Literal) return typeof node.value === 'string'
  return node.type === AST_NODE_TYPES.TemplateLiteral && node.expressions.length === 0
}

function isStringLike(type: { getSymbol(): { getName(): string } | undefined }): boolean {
  return type.getSymbol()?.getName() === 'String'
}
