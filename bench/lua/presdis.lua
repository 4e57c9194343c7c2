-- Present a sheet, then dismiss it with a result, on every session in IDS_FILE, round-robin
-- as pushpop.lua does. For bench/profile (`bench/profile --instructions presdis`), not a
-- bench/run workload: a present or a dismiss is re-encoded whole, where a push or a pop
-- edits the last JSON (docs/performance.md, items 73 and 87). PREFER as in pushpop.lua.
dofile(os.getenv("BENCH_LUA_DIR") .. "/report.lua")
local function post(session, path, body)
  return wrk.format("POST", path, preferring(auth_headers(session, { ["Content-Type"] = "application/json" })), body)
end
alternating_writes(
  function(session, base)
    return post(session, base .. "/present", '{"style":"sheet","screen":"compose","title":"New message","params":{"draft":"x"}}')
  end,
  function(session, base)
    return post(session, base .. "/dismiss", '{"result":{"saved":true}}')
  end)
