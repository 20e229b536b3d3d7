"""Requests sent byte for byte, for what no HTTP library would send (NUL and
control bytes, broken request lines, exact header forms)."""

import socket


def request(port, data, timeout=15):
    """Sends `data` (bytes, or text encoded as Latin-1) to 127.0.0.1:`port`
    and reads until the server closes: (status, headers with lowercased
    names, body bytes).  Send `Connection: close` in `data`."""
    if isinstance(data, str):
        data = data.encode("latin-1")
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
        s.sendall(data)
        out = b""
        while True:
            chunk = s.recv(65536)
            if not chunk:
                break
            out += chunk
    head, _, body = out.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    return int(lines[0].split()[1]), headers, body
