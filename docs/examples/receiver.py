# A slotkeeper HTTP target in Python 3's standard library: python3 receiver.py PORT SECRET
import hashlib, hmac, http.server, sqlite3, sys, time
db = sqlite3.connect(":memory:")
db.executescript("CREATE TABLE deliveries (key TEXT PRIMARY KEY, status INT, body TEXT);"
                 "CREATE TABLE fences (schedule TEXT PRIMARY KEY, token INT); CREATE TABLE effects (key TEXT)")

class Receiver(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        h, body = self.headers, self.rfile.read(int(self.headers["Content-Length"] or 0))
        parts = [p.split("=", 1) for p in (h["Slotkeeper-Signature"] or "").split(",") if "=" in p]
        t = next((v for k, v in parts if k == "t" and v.isdigit()), "0")
        mac = hmac.new(sys.argv[2].encode(), t.encode() + b"." + body, hashlib.sha256).hexdigest()
        if abs(time.time() - int(t)) > 300 or not any(hmac.compare_digest(mac, v) for k, v in parts if k == "v1"):
            return self.answer(401, "bad signature")
        key, schedule, token = h["Idempotency-Key"], h["Slotkeeper-Schedule"], int(h["Slotkeeper-Fencing-Token"])
        with db:  # one transaction: the fence, the key and the effect commit together
            top = db.execute("SELECT token FROM fences WHERE schedule = ?", (schedule,)).fetchone()
            if top and token < top[0]:
                return self.answer(409, "stale fencing token")
            db.execute("INSERT OR REPLACE INTO fences VALUES (?, ?)", (schedule, token))
            done = db.execute("SELECT status, body FROM deliveries WHERE key = ?", (key,)).fetchone()
            if done:
                return self.answer(*done)
            db.execute("INSERT INTO effects VALUES (?)", (key,))  # the team's work
            db.execute("INSERT INTO deliveries VALUES (?, 200, ?)", (key, "done " + key))
        self.answer(200, "done " + key)

    def answer(self, status, text):
        self.send_response(status); self.end_headers(); self.wfile.write(text.encode())

http.server.HTTPServer(("127.0.0.1", int(sys.argv[1])), Receiver).serve_forever()  # one request at a time
