"""DNS queries from the test process, printed as dig prints them.

named.py asks its named the same questions hundreds of times a run (is the
zone served yet, has the record reached it); a dig process per question
costs about 40 ms of CPU.  query() asks what `dig @server -p port
+norecurse +time=2 +tries=1 name type` asks, the way dig asks it: RD clear,
AD set, EDNS with a 1232-byte UDP size, one try that waits 2 seconds, over
TCP when asked and again over TCP when the UDP answer is truncated.  The
Answer prints what dig prints for it: short() the lines of dig +short,
text() dig's full output (header, flags, sections).  The rdata of each type
is printed as BIND prints it (lib/dns/rdata, lib/dns/name.c), so that
"v=a" "b" TXT strings, escaped names, CAA values and compressed AAAA
addresses come out character for character as dig's.

Only what is printed exactly as dig prints it is handled here: query names
of letters, digits, hyphens and underscores (dig passes other names
through IDNA), the types in TYPES, well-formed answers.  Anything else
raises Unsupported, and the caller asks dig.  A server that does not
answer raises NoAnswer, with what dig says before it exits 9.
"""

import os
import re
import socket
import struct
import time

# The types whose rdata this module prints as dig does, by number.
TYPES = {1: "A", 2: "NS", 5: "CNAME", 6: "SOA", 12: "PTR", 15: "MX", 16: "TXT",
         28: "AAAA", 33: "SRV", 39: "DNAME", 257: "CAA"}
TYPE_NUMBERS = {v: k for k, v in TYPES.items()}
OPT = 41
CLASS_IN = 1

OPCODES = ["QUERY", "IQUERY", "STATUS", "RESERVED3", "NOTIFY", "UPDATE"] + \
          [f"RESERVED{i}" for i in range(6, 16)]
# BIND's rcode names (lib/dns/rcode.c); dig prints others as "?N".
RCODES = {0: "NOERROR", 1: "FORMERR", 2: "SERVFAIL", 3: "NXDOMAIN", 4: "NOTIMP",
          5: "REFUSED", 6: "YXDOMAIN", 7: "YXRRSET", 8: "NXRRSET", 9: "NOTAUTH",
          10: "NOTZONE", 16: "BADVERS", 23: "BADCOOKIE"}
RCODES.update({i: f"RESERVED{i}" for i in range(11, 16)})
# Header flags, in the order dig prints them.
FLAGS = [("qr", 0x8000), ("aa", 0x0400), ("tc", 0x0200), ("rd", 0x0100),
         ("ra", 0x0080), ("ad", 0x0020), ("cd", 0x0010)]
FLAG_AD = 0x0020
FLAG_TC = 0x0200
UDP_SIZE = 1232     # dig's EDNS buffer size

_LABEL = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_-]*\Z")


class Unsupported(Exception):
    """A question or answer this module does not print exactly as dig."""


class NoAnswer(Exception):
    """The server did not answer: what dig prints before it exits 9."""


# --------------------------------------------------------------------------
# Names
# --------------------------------------------------------------------------

def name_to_wire(name):
    """The wire form of `name` as dig sends it (case kept, absolute)."""
    text = name[:-1] if name.endswith(".") else name
    labels = text.split(".")
    if not text or not all(_LABEL.match(label) and len(label) <= 63 for label in labels):
        raise Unsupported(f"query name {name!r}")
    wire = b"".join(bytes([len(label)]) + label.encode("ascii") for label in labels) + b"\0"
    if len(wire) > 255:
        raise Unsupported(f"query name {name!r} is too long")
    return wire


def name_to_text(labels):
    """A name as BIND's dns_name_totext prints it (master-file escapes:
    . ; \\ " ( ) @ $ with a backslash, other bytes outside ! to ~ as \\DDD),
    absolute, "." for the root."""
    if not labels:
        return "."
    out = []
    for label in labels:
        chars = []
        for c in label:
            if c in b'".;\\()@$':
                chars.append("\\" + chr(c))
            elif 0x20 < c < 0x7f:
                chars.append(chr(c))
            else:
                chars.append(f"\\{c:03d}")
        out.append("".join(chars))
    return ".".join(out) + "."


def read_name(msg, pos, compress=True, limit=None):
    """(labels, position after the name) of the name at `pos` of `msg`,
    which ends before `limit` (the end of its rdata); pointers only
    backwards, as BIND accepts them, and none where BIND's fromwire of the
    type forbids compression (SRV, DNAME)."""
    limit = len(msg) if limit is None else limit
    labels = []
    end = None
    length = 1
    lowest = pos        # a pointer must point before every earlier one
    while True:
        if pos >= limit:
            raise Unsupported("name runs past its end")
        n = msg[pos]
        if n >= 0xC0:
            if not compress or pos + 1 >= limit:
                raise Unsupported("compressed name where none is allowed")
            target = ((n & 0x3F) << 8) | msg[pos + 1]
            if end is None:
                end = pos + 2
            if target >= lowest:
                raise Unsupported("bad compression pointer")
            lowest = pos = target
            continue
        if n >= 0x40:
            raise Unsupported("bad label type")
        pos += 1
        if n == 0:
            break
        if pos + n > limit:
            raise Unsupported("label runs past its end")
        labels.append(msg[pos:pos + n])
        length += n + 1
        if length > 255:
            raise Unsupported("name too long")
        pos += n
    return labels, (end if end is not None else pos)


# --------------------------------------------------------------------------
# Rdata, as BIND's totext of each type prints it
# --------------------------------------------------------------------------

def txt_string(data, quote=True):
    """commatxt_totext: one <character-string>, quoted or not."""
    out = ['"'] if quote else []
    for c in data:
        if c < (0x20 if quote else 0x21) or c >= 0x7f:
            out.append(f"\\{c:03d}")
        elif c in b'"\\' or (not quote and c in b"@;"):
            out.append("\\" + chr(c))
        else:
            out.append(chr(c))
    if quote:
        out.append('"')
    return "".join(out)


def multitxt(data):
    """multitxt_totext: the whole of `data` as one quoted string."""
    out = ['"']
    for c in data:
        if c < 0x20 or c >= 0x7f:
            out.append(f"\\{c:03d}")
        elif c in b'"\\':
            out.append("\\" + chr(c))
        else:
            out.append(chr(c))
    out.append('"')
    return "".join(out)


def rdata_to_text(msg, rtype, start, end):
    """The rdata at msg[start:end] as dig prints it; Unsupported for a type
    not in TYPES or rdata BIND would not accept."""
    data = msg[start:end]

    def name_at(pos, compress=True):
        labels, after = read_name(msg, pos, compress, end)
        return name_to_text(labels), after

    def done(pos):
        if pos != end:
            raise Unsupported(f"{TYPES[rtype]} rdata of a wrong length")

    if rtype == 1:
        if len(data) != 4:
            raise Unsupported("A rdata of a wrong length")
        return socket.inet_ntop(socket.AF_INET, data)
    if rtype == 28:
        if len(data) != 16:
            raise Unsupported("AAAA rdata of a wrong length")
        return socket.inet_ntop(socket.AF_INET6, data)
    if rtype in (2, 5, 12, 39):         # NS, CNAME, PTR; DNAME uncompressed
        text, pos = name_at(start, compress=rtype != 39)
        done(pos)
        return text
    if rtype == 15:                     # MX
        if len(data) < 3:
            raise Unsupported("short MX rdata")
        text, pos = name_at(start + 2)
        done(pos)
        return f"{struct.unpack('!H', data[:2])[0]} {text}"
    if rtype == 33:                     # SRV: target never compressed
        if len(data) < 7:
            raise Unsupported("short SRV rdata")
        text, pos = name_at(start + 6, compress=False)
        done(pos)
        return "%d %d %d %s" % (*struct.unpack("!HHH", data[:6]), text)
    if rtype == 6:                      # SOA
        mname, pos = name_at(start)
        rname, pos = name_at(pos)
        if end - pos != 20:
            raise Unsupported("SOA rdata of a wrong length")
        numbers = struct.unpack("!5I", msg[pos:end])
        return " ".join([mname, rname] + [str(n) for n in numbers])
    if rtype == 16:                     # TXT: the strings, quoted, spaced
        strings, pos = [], 0
        if not data:
            raise Unsupported("empty TXT rdata")
        while pos < len(data):
            n = data[pos]
            if pos + 1 + n > len(data):
                raise Unsupported("TXT string runs past the rdata")
            strings.append(txt_string(data[pos + 1:pos + 1 + n]))
            pos += 1 + n
        return " ".join(strings)
    if rtype == 257:                    # CAA: flags, tag, value
        if len(data) < 2 or data[1] == 0 or len(data) < 2 + data[1]:
            raise Unsupported("bad CAA rdata")
        tag = data[2:2 + data[1]]
        if not tag.isalnum():
            raise Unsupported("CAA tag not alphanumeric")
        return f"{data[0]} {txt_string(tag, quote=False)} {multitxt(data[2 + len(tag):])}"
    raise Unsupported(f"type {rtype}")


# --------------------------------------------------------------------------
# Messages
# --------------------------------------------------------------------------

def type_name(rtype):
    return TYPES.get(rtype, f"TYPE{rtype}")


def make_query(qname, qtype, qid):
    """dig's query: RD clear (+norecurse), AD set, one question, an OPT
    record with dig's UDP size and no options."""
    header = struct.pack("!HHHHHH", qid, FLAG_AD, 1, 0, 0, 1)
    opt = b"\0" + struct.pack("!HHIH", OPT, UDP_SIZE, 0, 0)
    return header + qname + struct.pack("!HH", qtype, CLASS_IN) + opt


class Record:
    """One resource record: owner, ttl, class and type numbers, and its
    rdata as dig prints it (None when this module cannot print it)."""

    def __init__(self, owner, ttl, rclass, rtype, text, problem=None):
        self.owner, self.ttl, self.rclass, self.rtype = owner, ttl, rclass, rtype
        self.text, self.problem = text, problem

    def line(self):
        """The record's line in dig's full output (masterdump's columns:
        TTL at 24, class at 32, type at 40, rdata at 48, tabs of 8)."""
        if self.text is None:
            raise Unsupported(self.problem)
        return columns([self.owner, str(self.ttl), "IN", type_name(self.rtype), self.text],
                       [24, 32, 40, 48])


def columns(fields, stops):
    """masterdump.c's indent(): each field after the first starts at its
    stop, reached with tabs and then spaces, one space at least."""
    out, col = fields[0], len(fields[0])
    for field, to in zip(fields[1:], stops):
        to = max(to, col + 1)
        tabs = to // 8 - col // 8
        if tabs > 0:
            out += "\t" * tabs
            col = (to // 8) * 8
        out += " " * (to - col) + field
        col = to + len(field)
    return out


class Answer:
    """A parsed reply; short() and text() print it as dig does."""

    def __init__(self, msg, qname, qtype):
        if len(msg) < 12:
            raise Unsupported("short message")
        (self.id, flags, qdcount, ancount, nscount,
         arcount) = struct.unpack("!HHHHHH", msg[:12])
        self.flags = flags
        self.opcode = (flags >> 11) & 0xF
        self.rcode = flags & 0xF
        self.size = len(msg)
        self.counts = (qdcount, ancount, nscount, arcount)
        self.opt = None
        pos = 12
        self.question = []
        for _ in range(qdcount):
            labels, pos = read_name(msg, pos)
            if pos + 4 > len(msg):
                raise Unsupported("question runs past the message")
            self.question.append((labels,) + struct.unpack("!HH", msg[pos:pos + 4]))
            pos += 4
        self.sections = []
        for index, count in enumerate((ancount, nscount, arcount)):
            records = []
            for _ in range(count):
                labels, pos = read_name(msg, pos)
                if pos + 10 > len(msg):
                    raise Unsupported("record runs past the message")
                rtype, rclass, ttl, rdlen = struct.unpack("!HHIH", msg[pos:pos + 10])
                pos += 10
                if pos + rdlen > len(msg):
                    raise Unsupported("rdata runs past the message")
                if rtype == OPT:
                    if self.opt is not None or labels or index != 2:
                        raise Unsupported("misplaced OPT record")
                    self.opt = (rclass, ttl, msg[pos:pos + rdlen])
                    self.rcode |= (ttl >> 24) << 4
                elif rclass != CLASS_IN:
                    records.append(Record(name_to_text(labels), ttl, rclass, rtype,
                                          None, f"class {rclass}"))
                else:
                    try:
                        text, problem = rdata_to_text(msg, rtype, pos, pos + rdlen), None
                    except Unsupported as e:
                        text, problem = None, str(e)
                    records.append(Record(name_to_text(labels), ttl, rclass, rtype,
                                          text, problem))
                pos += rdlen
            self.sections.append(records)
        if pos != len(msg):
            raise Unsupported("bytes after the message")
        self.answer, self.authority, self.additional = self.sections
        self.qname_matches = (len(self.question) == 0 or all(
            q[1] == qtype and q[2] == CLASS_IN and
            [label.lower() for label in q[0]] == [label.lower() for label in qname]
            for q in self.question))
        self.truncated_first = False    # set when UDP was truncated and TCP asked
        self.protocol = "UDP"
        self.server = None
        self.elapsed = 0.0

    @property
    def status(self):
        """The rcode as dig's header line names it (NOERROR, NXDOMAIN...)."""
        return RCODES.get(self.rcode, f"?{self.rcode}")

    def short(self):
        """dig +short: the rdata of each answer record, in message order."""
        for r in self.answer:
            if r.text is None:
                raise Unsupported(r.problem)
        return [r.text for r in self.answer]

    def text(self):
        """dig's full output for this answer: the header and flags lines,
        the OPT pseudosection and the sections, then the statistics."""
        lines = []
        if self.truncated_first:
            lines.append(";; Truncated, retrying in TCP mode.")
        lines += ["", f"; <<>> tests/e2e/dnsquery.py <<>> {self.command}",
                  ";; Got answer:",
                  f";; ->>HEADER<<- opcode: {OPCODES[self.opcode]}, status: {self.status}, "
                  f"id: {self.id}"]
        flags = "".join(" " + name for name, bit in FLAGS if self.flags & bit)
        if self.flags & 0x0040:
            flags += "; MBZ: 0x4"
        qd, an, ns, ar = self.counts
        lines.append(f";; flags:{flags}; QUERY: {qd}, ANSWER: {an}, AUTHORITY: {ns}, "
                     f"ADDITIONAL: {ar}")
        lines.append("")
        if self.opt is not None:
            size, ttl, options = self.opt
            eflags = " do" if ttl & 0x8000 else ""
            lines += [";; OPT PSEUDOSECTION:",
                      f"; EDNS: version: {(ttl >> 16) & 0xFF}, flags:{eflags}; udp: {size}"]
            pos = 0
            while pos + 4 <= len(options):
                code, n = struct.unpack("!HH", options[pos:pos + 4])
                lines.append(f"; OPT={code}: {options[pos + 4:pos + 4 + n].hex().upper()}")
                pos += 4 + n
        if self.question:
            lines.append(";; QUESTION SECTION:")
            for labels, qtype, qclass in self.question:
                cls = "IN" if qclass == CLASS_IN else f"CLASS{qclass}"
                # The ";" is written before masterdump's columns count.
                lines.append(";" + columns([name_to_text(labels), cls, type_name(qtype)],
                                           [32, 40]))
            lines.append("")
        for title, records in zip(("ANSWER", "AUTHORITY", "ADDITIONAL"), self.sections):
            if records:
                lines.append(f";; {title} SECTION:")
                lines += [r.line() for r in records]
                lines.append("")
        lines += [f";; Query time: {int(self.elapsed * 1000)} msec",
                  f";; SERVER: {self.server} ({self.protocol})",
                  ";; WHEN: " + time.strftime("%a %b %d %H:%M:%S %Z %Y"),
                  f";; MSG SIZE  rcvd: {self.size}", ""]
        return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------
# Asking
# --------------------------------------------------------------------------

def _udp(server, port, packet, qid, qname, qtype, timeout):
    family = socket.AF_INET6 if ":" in server else socket.AF_INET
    deadline = time.monotonic() + timeout
    with socket.socket(family, socket.SOCK_DGRAM) as s:
        try:
            s.connect((server, port))
            s.send(packet)
            while True:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise socket.timeout
                s.settimeout(left)
                reply = s.recv(65535)
                # dig waits on past a reply to another query (ID or
                # question mismatch) or a short one.
                if len(reply) < 12 or struct.unpack("!H", reply[:2])[0] != qid:
                    continue
                answer = Answer(reply, qname, qtype)
                if answer.opcode != 0 or not answer.qname_matches:
                    continue
                return answer
        except socket.timeout:
            raise NoAnswer(f";; communications error to {server}#{port}: timed out\n"
                           ";; no servers could be reached") from None
        except ConnectionRefusedError:
            raise NoAnswer(f";; communications error to {server}#{port}: connection refused\n"
                           ";; no servers could be reached") from None
        except OSError as e:
            raise NoAnswer(f";; communications error to {server}#{port}: {e.strerror}\n"
                           ";; no servers could be reached") from None


def _recv_exactly(s, n, deadline):
    data = b""
    while len(data) < n:
        left = deadline - time.monotonic()
        if left <= 0:
            raise socket.timeout
        s.settimeout(left)
        chunk = s.recv(n - len(data))
        if not chunk:
            raise EOFError
        data += chunk
    return data


def _tcp(server, port, packet, qid, qname, qtype, timeout, name):
    family = socket.AF_INET6 if ":" in server else socket.AF_INET
    deadline = time.monotonic() + timeout
    with socket.socket(family, socket.SOCK_STREAM) as s:
        try:
            s.settimeout(timeout)
            s.connect((server, port))
            s.sendall(struct.pack("!H", len(packet)) + packet)
            n = struct.unpack("!H", _recv_exactly(s, 2, deadline))[0]
            reply = _recv_exactly(s, n, deadline)
        except ConnectionRefusedError:
            raise NoAnswer(f";; Connection to {server}#{port}({server}) for {name} failed: "
                           "connection refused.\n;; no servers could be reached") from None
        except socket.timeout:
            raise NoAnswer(f";; communications error to {server}#{port}: timed out\n"
                           ";; no servers could be reached") from None
        except (EOFError, ConnectionResetError):
            raise NoAnswer(f";; communications error to {server}#{port}: end of file\n"
                           ";; no servers could be reached") from None
        except OSError as e:
            raise NoAnswer(f";; communications error to {server}#{port}: {e.strerror}\n"
                           ";; no servers could be reached") from None
    if len(reply) < 12 or struct.unpack("!H", reply[:2])[0] != qid:
        raise Unsupported("TCP reply to another query")
    answer = Answer(reply, qname, qtype)
    if answer.opcode != 0 or not answer.qname_matches:
        raise Unsupported("TCP reply to another question")
    return answer


def query(server, port, name, rtype="A", *, tcp=False, timeout=2.0):
    """The Answer of `server`:`port` to `name` `rtype`, asked as dig asks
    with +norecurse +time=2 +tries=1 (+tcp when `tcp`); a truncated UDP
    answer is asked again over TCP, as dig does.  NoAnswer when the
    server does not answer, Unsupported for what dig must ask."""
    qtype = TYPE_NUMBERS.get(rtype.upper())
    if qtype is None:
        raise Unsupported(f"type {rtype}")
    qwire = name_to_wire(name)
    qname, _ = read_name(qwire, 0)
    qid = struct.unpack("!H", os.urandom(2))[0]
    packet = make_query(qwire, qtype, qid)
    started = time.monotonic()
    truncated = False
    if not tcp:
        answer = _udp(server, port, packet, qid, qname, qtype, timeout)
        if answer.flags & FLAG_TC:
            truncated = True
            tcp = True
    if tcp:
        answer = _tcp(server, port, packet, qid, qname, qtype, timeout, name)
        answer.protocol = "TCP"
    answer.truncated_first = truncated
    answer.elapsed = time.monotonic() - started
    answer.server = f"{server}#{port}({server})"
    answer.command = (f"@{server} -p {port} +norecurse +time={timeout:g} +tries=1 "
                      f"{name} {rtype}" + (" +tcp" if tcp and not truncated else ""))
    return answer
