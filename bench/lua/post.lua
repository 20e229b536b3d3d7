-- POSTs records, round-robin over domains; every record has a new name.
--   wrk ... -s post.lua URL -- PATH_TEMPLATE DOMAIN_IDS TAG
-- PATH_TEMPLATE has one %s for the domain id (/v4/domains/%s/records, or
-- /ref/insert?domain=%s for the write ceiling); DOMAIN_IDS is comma-separated.
-- The token comes from -H "Authorization: Bearer ...".

local dir = debug.getinfo(1, "S").source:match("^@(.*/)") or "./"
local common = dofile(dir .. "common.lua")

local next_id = 1
function setup(thread)
   thread:set("thread_id", next_id)
   next_id = next_id + 1
end

local template, domains, tag, headers
local n = 0

function init(args)
   template, domains, tag = args[1], common.list(args[2]), args[3]
   headers = common.headers({["Content-Type"] = "application/json"})
end

function request()
   n = n + 1
   local path = string.format(template, domains[n % #domains + 1])
   return wrk.format("POST", path, headers, common.record_body(tag, thread_id, n))
end
