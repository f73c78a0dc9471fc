// Runs a hook command through Gemini CLI's own code: its HookRunner (spawns the command, feeds the
// AfterTool input on stdin, parses stdout), HookAggregator and executeToolWithHooks (what an AfterTool
// answer does to a tool's result). Usage: node gemini_core_after_tool.mjs CORE_DIR PAYLOAD.json COMMAND
// CORE_DIR is an installed @google/gemini-cli-core; the tool's result is the payload's tool_response.
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const [coreDir, payloadPath, command] = process.argv.slice(2);
const load = (rel) => import(pathToFileURL(path.join(coreDir, 'dist', 'src', rel)).href);
const { HookRunner } = await load('hooks/hookRunner.js');
const { HookAggregator } = await load('hooks/hookAggregator.js');
const { executeToolWithHooks } = await load('core/coreToolHookTriggers.js');

const payload = JSON.parse(fs.readFileSync(payloadPath, 'utf8'));
const config = {
  sanitizationConfig: { enableEnvironmentVariableRedaction: false },
  storage: { getPlansDir: () => path.join(payload.cwd, '.plans') },
  isTrustedFolder: () => true,
};
const runner = new HookRunner(config);
const aggregator = new HookAggregator();
const hookSystem = {
  async fireAfterToolEvent(toolName, toolInput, toolResponse) {
    const input = {
      session_id: payload.session_id, transcript_path: payload.transcript_path, cwd: payload.cwd,
      hook_event_name: 'AfterTool', timestamp: new Date().toISOString(),
      tool_name: toolName, tool_input: toolInput, tool_response: toolResponse,
    };
    const result = await runner.executeHook({ type: 'command', command, name: 'nolife-tokens' }, 'AfterTool', input);
    return aggregator.aggregateResults([result], 'AfterTool').finalOutput;
  },
};
const invocation = {
  params: { ...payload.tool_input },
  execute: async () => ({ ...payload.tool_response }),
};
const result = await executeToolWithHooks(invocation, payload.tool_name, new AbortController().signal, {},
  undefined, undefined, { getHookSystem: () => hookSystem }, undefined, true);
process.stdout.write("\n" + JSON.stringify({ llmContent: result.llmContent, returnDisplay: result.returnDisplay,
  error: result.error ?? null }));
