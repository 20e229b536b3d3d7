-- A 90/10 read/write mix over the data set, cycling through ten requests:
--   3 x GET /v4/profile
--   3 x GET /v4/domains/{id}
--   2 x GET /v4/domains/{id}/records (first page, default size)
--   1 x GET /v4/databases/instances
--   1 x POST /v4/domains/{id}/records
-- each with the next of the account's tokens, over the given domains.
--   wrk ... -s mix.lua URL -- TOKENS DOMAIN_IDS TAG
-- TOKENS and DOMAIN_IDS are comma-separated; TAG makes the new records'
-- names unique to the run.

local dir = debug.getinfo(1, "S").source:match("^@(.*/)") or "./"
local common = dofile(dir .. "common.lua")

local next_id = 1
function setup(thread)
   thread:set("thread_id", next_id)
   next_id = next_id + 1
end

local tokens, domains, tag
local n = 0

function init(args)
   tokens, domains, tag = common.list(args[1]), common.list(args[2]), args[3]
end

local function get(path, auth)
   return wrk.format("GET", path, common.headers({["Authorization"] = auth}))
end

function request()
   n = n + 1
   -- Threads start at different points of the cycles so that they do not
   -- all write at the same moment.
   local slot = (n + thread_id * 5) % 10
   local auth = "Bearer " .. tokens[n % #tokens + 1]
   local domain = domains[(n * 7 + thread_id) % #domains + 1]
   if slot < 3 then
      return get("/v4/profile", auth)
   elseif slot < 6 then
      return get("/v4/domains/" .. domain, auth)
   elseif slot < 8 then
      return get("/v4/domains/" .. domain .. "/records", auth)
   elseif slot < 9 then
      return get("/v4/databases/instances", auth)
   end
   return wrk.format("POST", "/v4/domains/" .. domain .. "/records",
                     common.headers({["Authorization"] = auth,
                                     ["Content-Type"] = "application/json"}),
                     common.record_body(tag, thread_id, n))
end
