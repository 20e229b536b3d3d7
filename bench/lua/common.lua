-- Helpers shared by the wrk scripts of bench/run (loaded with dofile).

local common = {}

-- The numbers or words of a comma-separated argument, as a list.
function common.list(arg)
   local out = {}
   for item in string.gmatch(arg or "", "[^,]+") do
      out[#out + 1] = item
   end
   return out
end

-- wrk.format drops wrk.headers (the -H options) once it is given headers of
-- its own: copy them, then add or replace.
function common.headers(extra)
   local h = {}
   for k, v in pairs(wrk.headers) do
      h[k] = v
   end
   for k, v in pairs(extra or {}) do
      h[k] = v
   end
   return h
end

-- A record body with a name no other request of this run uses: the run's
-- tag, the wrk thread and a counter.
function common.record_body(tag, thread_id, n)
   return string.format('{"type": "A", "name": "%s-t%d-%d", "target": "192.0.2.%d"}',
                        tag, thread_id, n, n % 250 + 1)
end

-- Stops this wrk thread after `limit` responses (0: never) and says so on
-- stderr: wrk's main thread sleeps out its -d duration whatever its threads
-- do, so bench/run interrupts it (SIGINT) once every thread has said it.
-- response() is installed only when needed: it costs wrk a callback per
-- response.
function common.stop_after(limit)
   if limit and limit > 0 then
      local seen = 0
      response = function(status, headers, body)
         seen = seen + 1
         if seen == limit then
            io.stderr:write("bench: thread done\n")
            io.stderr:flush()
            wrk.thread:stop()
         end
      end
   end
end

return common
