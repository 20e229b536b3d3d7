"""One-time codes as a client computes them."""

import base64
import hashlib
import hmac
import re
import struct
import time


def totp(secret, when, steps=0):
    """RFC 6238: HMAC-SHA-1, 30 s steps, 6 digits; `secret` is base32."""
    key = base64.b32decode(secret + "=" * (-len(secret) % 8))
    counter = int(when) // 30 + steps
    mac = hmac.new(key, struct.pack(">Q", counter), hashlib.sha1).digest()
    offset = mac[-1] & 0x0F
    value = struct.unpack(">I", mac[offset:offset + 4])[0] & 0x7FFFFFFF
    return f"{value % 1000000:06d}"


def server_now(backend):
    """The servers' clock: real time plus the stored test-clock offset."""
    out = backend.admin("clock", "show")
    m = re.search(r"\(offset ([+-]\d+)s\)", out)
    assert m, out
    return time.time() + int(m.group(1))


def code_in(text, code):
    """Does `text` (a database dump, a log) hold the six-digit `code` as a
    value of its own?  Six digits also occur by chance inside longer runs
    of digits (epoch times) and of hex digits (hashes, and the names and
    labels the tests make from secrets.token_hex): those are not it."""
    return re.search(rf"(?<![0-9A-Fa-f]){re.escape(code)}(?![0-9A-Fa-f])", text) is not None
