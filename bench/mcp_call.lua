-- wrk script for bench/serve_bench.py: every request is one MCP `tools/call` POSTed to the
-- Streamable HTTP endpoint of an initialized session.
--
-- Environment (set by serve_bench.py):
--   MCP_SESSION  the Mcp-Session-Id returned by `initialize`
--   MCP_VERSION  the negotiated protocol version (sent as MCP-Protocol-Version)
--   MCP_PARAMS   the `params` object of the call, as JSON: {"name": ..., "arguments": {...}}
--
-- Each request gets a JSON-RPC id of its own (thread number * 1e9 + sequence), since a server
-- may refuse, or mix up, two requests in flight with the same id on one session.
-- Every response is checked: a success is a 2xx whose body holds a JSON-RPC `result` that is
-- not `"isError":true`; anything else counts as bad. `done` prints one line
-- `MCPBENCH {"ok":N,"bad":M}` that serve_bench.py parses.

local threads = {}
local next_tid = 1

function setup(thread)
  thread:set("tid", next_tid)
  next_tid = next_tid + 1
  table.insert(threads, thread)
end

function init(args)
  seq = 0
  ok = 0
  bad = 0
  params = os.getenv("MCP_PARAMS")
  headers = {
    ["Content-Type"] = "application/json",
    ["Accept"] = "application/json, text/event-stream",
    ["Mcp-Session-Id"] = os.getenv("MCP_SESSION"),
    ["MCP-Protocol-Version"] = os.getenv("MCP_VERSION"),
  }
end

function request()
  seq = seq + 1
  local id = string.format("%d", tid * 1000000000 + seq)
  local body = '{"jsonrpc":"2.0","id":' .. id .. ',"method":"tools/call","params":' .. params .. '}'
  return wrk.format("POST", nil, headers, body)
end

function response(status, headers, body)
  if status >= 200 and status < 300
      and string.find(body, '"result":', 1, true)
      and not string.find(body, '"isError":%s*true')
      and not string.find(body, '"error":%s*{%s*"code"') then
    ok = ok + 1
  else
    bad = bad + 1
  end
end

function done(summary, latency, requests)
  local total_ok, total_bad = 0, 0
  for _, thread in ipairs(threads) do
    total_ok = total_ok + (thread:get("ok") or 0)
    total_bad = total_bad + (thread:get("bad") or 0)
  end
  io.write(string.format('MCPBENCH {"ok":%d,"bad":%d}\n', total_ok, total_bad))
end
