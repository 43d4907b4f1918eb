import { describe, expect, it } from 'vitest'
import { insertMembers, removeMember, replaceStrings, replaceValue } from '../../src/config/json-edit.ts'

describe('insertMembers', () => {
  const text = '{\r\n\t"a": 1,\r\n\t"b": { "x": true }\r\n}\r\n'

  it('follows the object: its indent (tabs), its line ends (CRLF), after a member or first', () => {
    expect(insertMembers(text, [], [['n', '2']], 'a')).toBe(
      '{\r\n\t"a": 1,\r\n\t"n": 2,\r\n\t"b": { "x": true }\r\n}\r\n',
    )
    expect(insertMembers(text, [], [['n', '2']], 'b')).toBe(
      '{\r\n\t"a": 1,\r\n\t"b": { "x": true },\r\n\t"n": 2\r\n}\r\n',
    )
    expect(
      insertMembers(
        text,
        [],
        [
          ['n', '2'],
          ['m', '"x"'],
        ],
      ),
    ).toBe('{\r\n\t"n": 2,\r\n\t"m": "x",\r\n\t"a": 1,\r\n\t"b": { "x": true }\r\n}\r\n')
  })

  it('keeps a one-line object on one line, and fills an empty one', () => {
    expect(insertMembers(text, ['b'], [['y', 'null']])).toBe(
      '{\r\n\t"a": 1,\r\n\t"b": { "y": null, "x": true }\r\n}\r\n',
    )
    expect(insertMembers('{"o": {}}', ['o'], [['k', '1']])).toBe('{"o": { "k": 1 }}')
  })
})

describe('removeMember', () => {
  const text = '{\n  "l": {\n    "a": 1,\n    "b": [2],\n    "c": 3\n  }\n}\n'

  it('removes a member and its comma, keeping the layout of the rest', () => {
    expect(removeMember(text, ['l'], 'a')).toBe('{\n  "l": {\n    "b": [2],\n    "c": 3\n  }\n}\n')
    expect(removeMember(text, ['l'], 'b')).toBe('{\n  "l": {\n    "a": 1,\n    "c": 3\n  }\n}\n')
    expect(removeMember(text, ['l'], 'c')).toBe('{\n  "l": {\n    "a": 1,\n    "b": [2]\n  }\n}\n')
    expect(removeMember('{ "l": { "a": 1 } }', ['l'], 'a')).toBe('{ "l": {} }')
    expect(removeMember(text, ['l'], 'z')).toBe(text)
  })
})

describe('replaceValue and replaceStrings', () => {
  it('change only the values they are asked to, leaving every other byte (escapes too) as written', () => {
    const text = '{ "u": "https://old.example.org/x", "e": "caf\\u00e9", "k": ["https://old.example.org"], "n": 1 }'
    expect(replaceValue(text, ['n'], '2')).toBe(text.replace('"n": 1', '"n": 2'))
    expect(
      replaceStrings(text, (value) => (value.startsWith('https://old.') ? value.replace('old', 'new') : undefined)),
    ).toBe('{ "u": "https://new.example.org/x", "e": "caf\\u00e9", "k": ["https://new.example.org"], "n": 1 }')
  })
})
