import fc from "fast-check"
import { describe, expect, it } from "vitest"
import * as StructuredField from "../src/StructuredField.js"

describe("StructuredField", () => {
  it("splits outside quoted strings, escaped quotes included", () => {
    expect(StructuredField.split('"a,b";r=0, "c\\",d";r=1, e', ",")).toEqual(['"a,b";r=0', ' "c\\",d";r=1', " e"])
    expect(StructuredField.parseMember(' "a;b" ; r = 0 ;t=30;flag')).toEqual({
      item: '"a;b"',
      params: new Map([
        ["r", "0"],
        ["t", "30"]
      ])
    })
  })

  it("reads at most maxMembers parts, of a list and of a member: what follows is not read", () => {
    const list = Array.from({ length: 40 }, (_, i) => `m${i}`).join(",")
    expect(StructuredField.split(list, ",")).toEqual(
      Array.from({ length: StructuredField.maxMembers }, (_, i) => `m${i}`)
    )
    const params = Array.from({ length: 40 }, (_, i) => `p${i}=${i}`).join(";")
    // The item and 15 parameters: p15 is the 17th part.
    const member = StructuredField.parseMember(`"policy";${params}`)
    expect(member.params.size).toBe(StructuredField.maxMembers - 1)
    expect(member.params.get("p14")).toBe("14")
    expect(member.params.has("p15")).toBe(false)
  })

  it("whatever follows the first maxMembers members changes nothing", () =>
    fc.assert(
      fc.property(
        fc.array(fc.stringMatching(/^[a-z0-9";=]{0,8}$/), {
          minLength: StructuredField.maxMembers,
          maxLength: StructuredField.maxMembers
        }),
        fc.string(),
        (members, rest) => {
          // Balanced quotes in the members read, so that the separator after the last one counts.
          const read = members.map((member) => member.replaceAll('"', ""))
          expect(StructuredField.split(`${read.join(",")},${rest}`, ",")).toEqual(read)
        }
      )
    ))
})
