-- Plain requests (wrk's own, with its -H headers) that stop after a count:
--   wrk ... -s count.lua URL -- STOP_AFTER
-- STOP_AFTER is per wrk thread.

local dir = debug.getinfo(1, "S").source:match("^@(.*/)") or "./"
local common = dofile(dir .. "common.lua")

function init(args)
   common.stop_after(tonumber(args[1] or "0"))
end
