// lorebook:managed-plugin (written by `lorebook init`; removed by `lorebook uninstall`)
// Hands OpenCode's hooks to lorebook's per-machine launcher, .lorebook/bin/hook, and applies
// its answers. Edits are overwritten by `lorebook init`.
import { spawn } from "node:child_process"
import { existsSync } from "node:fs"
import { join } from "node:path"

const TIMEOUT_MS = 20000

export const Lorebook = async ({ directory, worktree }) => {
  const root = worktree || directory
  const launcher = join(root, ".lorebook", "bin", "hook")
  const sessions = new Map() // sessionID -> Promise of its session context (or "")
  const toolNotes = new Map() // callID -> context from before the tool ran

  const ask = (hook, payload) =>
    new Promise((resolve) => {
      if (!existsSync(launcher)) return resolve(null)
      let out = ""
      let child
      try {
        child = spawn(launcher, ["opencode", hook], { cwd: root, stdio: ["pipe", "pipe", "ignore"] })
      } catch (e) {
        return resolve(null)
      }
      const timer = setTimeout(() => child.kill("SIGKILL"), TIMEOUT_MS)
      child.on("error", () => { clearTimeout(timer); resolve(null) })
      child.stdout.on("data", (chunk) => { out += chunk })
      child.on("close", () => {
        clearTimeout(timer)
        try { resolve(out.trim() ? JSON.parse(out) : null) } catch (e) { resolve(null) }
      })
      child.stdin.on("error", () => {})
      child.stdin.end(JSON.stringify({ directory, ...payload }))
    })

  // Capture runs outlive OpenCode: `opencode run` exits right after session.idle without
  // waiting for plugins, so the launcher is started detached and not waited for.
  const launch = (hook, payload) => {
    if (!existsSync(launcher)) return
    try {
      const child = spawn(launcher, ["opencode", hook], { cwd: root, detached: true, stdio: ["pipe", "ignore", "ignore"] })
      child.on("error", () => {})
      child.stdin.on("error", () => {})
      child.stdin.end(JSON.stringify({ directory, ...payload }))
      child.unref()
    } catch (e) {}
  }

  const sessionStart = (sessionID) => {
    if (!sessions.has(sessionID)) {
      sessions.set(sessionID, ask("session.created", { sessionID }).then((a) => (a && a.context) || ""))
    }
    return sessions.get(sessionID)
  }

  // OpenCode orders a message's parts by id: the note's part gets an id of the same length
  // just after the prompt's, its rightmost character short of "z" raised to "z" (ids end in
  // random base-62 characters; "z" sorts last).
  const after = (id) => {
    const at = Math.max(...[...id].map((c, i) => (c === "z" ? -1 : i)))
    return at < 0 ? id + "z" : id.slice(0, at) + "z" + id.slice(at + 1)
  }

  const promptText = (parts) =>
    (parts || []).filter((p) => p && p.type === "text" && !p.synthetic).map((p) => p.text || "").join("\n")

  return {
    event: async ({ event }) => {
      const sessionID = event && event.properties && event.properties.sessionID
      if (!sessionID) return
      if (event.type === "session.created") await sessionStart(sessionID)
      else if (event.type === "session.idle") launch("session.idle", { sessionID })
    },
    "chat.message": async (input, output) => {
      await sessionStart(input.sessionID)
      const answer = await ask("chat.message", { sessionID: input.sessionID, prompt: promptText(output.parts) })
      const first = output.parts && output.parts[0]
      if (answer && answer.context && first) {
        output.parts.push({ ...first, id: after(first.id), type: "text", synthetic: true, text: answer.context })
      }
    },
    "experimental.chat.system.transform": async (input, output) => {
      if (!input.sessionID || output.system.some((s) => String(s).includes("title generator"))) return
      const context = await sessionStart(input.sessionID)
      if (context) output.system.push(context)
    },
    "tool.execute.before": async (input, output) => {
      const payload = { sessionID: input.sessionID, tool: input.tool, callID: input.callID, args: output.args || {} }
      const answer = await ask("tool.execute.before", payload)
      if (answer && answer.decision === "deny") throw new Error(answer.reason || "blocked by lorebook")
      if (answer && answer.context) toolNotes.set(input.callID, answer.context)
    },
    "tool.execute.after": async (input, output) => {
      const exit = output.metadata && output.metadata.exit
      const payload = { sessionID: input.sessionID, tool: input.tool, callID: input.callID,
        args: input.args || {}, output: typeof output.output === "string" ? output.output : "", exit }
      const answer = await ask("tool.execute.after", payload)
      const notes = [toolNotes.get(input.callID), answer && answer.context].filter(Boolean)
      toolNotes.delete(input.callID)
      if (notes.length && typeof output.output === "string") output.output += "\n\n" + notes.join("\n\n")
    },
    "experimental.session.compacting": async (input) => {
      launch("experimental.session.compacting", { sessionID: input.sessionID })
    },
  }
}
