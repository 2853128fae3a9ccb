#!/usr/bin/env python3
"""Records the raw HTTP requests snarkpipe's client sends (make_corpus.sh, fuzz_http's seeds):
listens on 127.0.0.1:PORT, saves each request to DIR/reqNN.http and answers 200 {}."""
import os
import socket
import sys

out, port = sys.argv[1], int(sys.argv[2])
server = socket.socket()
server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
server.bind(("127.0.0.1", port))
server.listen(16)
n = 0
while True:
    conn, _ = server.accept()
    conn.settimeout(2)
    data = b""
    try:
        while True:
            piece = conn.recv(65536)
            if not piece:
                break
            data += piece
            end = data.find(b"\r\n\r\n")
            if end < 0:
                continue
            head = data[:end].lower()
            if b"content-length:" in head:
                if len(data) >= end + 4 + int(head.split(b"content-length:")[1].split(b"\r\n")[0]):
                    break
            elif b"chunked" not in head or data.endswith(b"0\r\n\r\n"):
                break
    except OSError:
        pass
    n += 1
    with open(os.path.join(out, "req%02d.http" % n), "wb") as f:
        f.write(data)
    conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\n"
                 b"Connection: close\r\n\r\n{}")
    conn.close()
