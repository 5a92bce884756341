"""Talks to the asky XMPP bot as a real user would, with slixmpp (a
second, independent XMPP implementation), through a real Prosody.

Run by `make xmpp-interop` (interop_test.go starts Prosody and the bot);
never part of `make test`. Exits 0 when every check passed; prints one
line per check.
"""
import argparse
import asyncio
import sys

import slixmpp

CHECKS = []


def check(name, ok, detail=""):
    CHECKS.append((name, ok))
    print(("PASS " if ok else "FAIL ") + name + (f": {detail}" if detail and not ok else ""), flush=True)


class User(slixmpp.ClientXMPP):
    def __init__(self, jid, password, ca):
        super().__init__(jid, password)
        self.ca_certs = ca
        self.inbox = asyncio.Queue()
        self.presences = asyncio.Queue()
        for p in ("xep_0030", "xep_0045", "xep_0184", "xep_0249", "xep_0199", "xep_0308"):
            self.register_plugin(p)
        self.add_event_handler("message", lambda m: self.inbox.put_nowait(m))
        self.add_event_handler("presence", lambda p: self.presences.put_nowait(p))
        self.add_event_handler("groupchat_presence", lambda p: self.presences.put_nowait(p))
        self.ready = asyncio.Event()
        self.add_event_handler("session_start", self._start)
        self.add_event_handler("failed_auth", lambda _: print("auth failed", flush=True))

    async def _start(self, _):
        self.send_presence()
        await self.get_roster()
        self.ready.set()

    async def until(self, pred, timeout=15):
        """Collects messages until pred(msg) is true; returns them all."""
        got = []
        loop = asyncio.get_running_loop()
        end = loop.time() + timeout
        while True:
            left = end - loop.time()
            if left <= 0:
                return got, False
            try:
                m = await asyncio.wait_for(self.inbox.get(), left)
            except asyncio.TimeoutError:
                return got, False
            got.append(m)
            if pred(m):
                return got, True

    def drain(self):
        while not self.inbox.empty():
            self.inbox.get_nowait()


def is_answer(m, prefix):
    return m["body"].startswith(prefix) and not m["replace"]["id"]


async def main(a):
    bot = a.bot
    alice = User(a.alice, a.alice_pw, a.ca)
    bob = User(a.bob, a.bob_pw, a.ca)
    for u in (alice, bob):
        u.connect(a.host, a.port)
    await asyncio.wait_for(asyncio.gather(alice.ready.wait(), bob.ready.wait()), 20)
    check("login with STARTTLS and the test CA", True)

    # Direct chat.
    alice.send_message(mto=bot, mbody="hello", mtype="chat")
    got, ok = await alice.until(lambda m: is_answer(m, "echo:"))
    check("direct chat answered", ok and got[-1]["body"] == f"echo: hello (xmpp:{a.alice})", [m["body"] for m in got])
    check("answer is type chat", ok and got[-1]["type"] == "chat", got[-1]["type"] if got else "")

    # Delivery receipt (XEP-0184) and service discovery (XEP-0030).
    receipt = asyncio.Event()
    alice.add_event_handler("receipt_received", lambda m: receipt.set())
    msg = alice.make_message(mto=bot, mbody="receipt please", mtype="chat")
    msg["request_receipt"] = True
    msg.send()
    try:
        await asyncio.wait_for(receipt.wait(), 5)
    except asyncio.TimeoutError:
        pass
    check("delivery receipt returned", receipt.is_set())
    await alice.until(lambda m: is_answer(m, "echo: receipt please"))
    info = await alice.plugin["xep_0030"].get_info(jid=bot + "/asky", timeout=5)
    feats = info["disco_info"]["features"]
    check("disco#info advertises ad-hoc commands", "http://jabber.org/protocol/commands" in feats, feats)
    check("disco#info advertises pings", "urn:xmpp:ping" in feats, feats)
    try:
        await alice.plugin["xep_0199"].ping(jid=bot + "/asky", timeout=5)
        check("ping answered (XEP-0199)", True)
    except Exception as e:  # IqError (service-unavailable) or IqTimeout
        check("ping answered (XEP-0199)", False, repr(e))

    # XML-special characters, emoji, RTL.
    q = "<b>&amp; \"q\" 'a' ]]> 🎉👩‍💻 שלום مرحبا"
    alice.send_message(mto=bot, mbody=q, mtype="chat")
    got, ok = await alice.until(lambda m: is_answer(m, "echo:"))
    check("special characters round-trip", ok and got[-1]["body"] == f"echo: {q} (xmpp:{a.alice})", got[-1]["body"] if got else "")

    # type="normal" is answered like chat.
    alice.send_message(mto=bot, mbody="as normal", mtype="normal")
    got, ok = await alice.until(lambda m: is_answer(m, "echo: as normal"))
    check("type normal answered", ok)

    # type="error" and headline are not questions.
    alice.send_message(mto=bot, mbody="an error", mtype="error")
    alice.send_message(mto=bot, mbody="a headline", mtype="headline")
    got, ok = await alice.until(lambda m: is_answer(m, "echo:"), timeout=2)
    check("error/headline messages ignored", not ok, [m["body"] for m in got])

    # A long answer arrives in several messages that reassemble.
    alice.send_message(mto=bot, mbody="long", mtype="chat")
    parts = []
    got, ok = await alice.until(lambda m: (not m["replace"]["id"] and not m["body"].startswith(("⏳", "✓")) and parts.append(m["body"])) or m["body"].endswith("END"), timeout=30)
    body = "\n".join(parts)
    check("long answer split and complete", ok and len(parts) > 1 and body.startswith("line 0000") and len(body) > 150_000, f"{len(parts)} parts, {len(body)} bytes")

    # A JID not in allowed_jids gets nothing.
    bob.send_message(mto=bot, mbody="let me in", mtype="chat")
    got, ok = await bob.until(lambda m: True, timeout=2)
    check("unlisted JID ignored", not ok, [m["body"] for m in got])

    # Subscription: approved for alice, refused for bob.
    for u, want in ((alice, "subscribed"), (bob, "unsubscribed")):
        u.send_presence(pto=bot, ptype="subscribe")
        res = None
        try:
            while True:
                p = await asyncio.wait_for(u.presences.get(), 5)
                if p["from"].bare == bot and p["type"] in ("subscribed", "unsubscribed"):
                    res = p["type"]
                    break
        except asyncio.TimeoutError:
            pass
        check(f"subscription from {u.boundjid.bare} {want}", res == want, res)

    # Group chat: create a room, invite the bot (XEP-0249), ask there.
    room = a.room
    await alice.plugin["xep_0045"].join_muc_wait(slixmpp.JID(room), "alice", maxstanzas=0, timeout=10)
    alice.plugin["xep_0249"].send_invitation(slixmpp.JID(bot + "/asky"), slixmpp.JID(room))
    seen = []
    try:
        while room + "/asky" not in seen:
            p = await asyncio.wait_for(alice.presences.get(), 10)
            seen.append(str(p["from"]))
    except asyncio.TimeoutError:
        pass
    check("bot joins the room it was invited to", room + "/asky" in seen, seen)
    alice.drain()
    alice.send_message(mto=room, mbody="hi room", mtype="groupchat")
    got, ok = await alice.until(lambda m: m["type"] == "groupchat" and is_answer(m, "echo:"))
    check("group chat answered in the room", ok and got[-1]["body"] == f"echo: hi room (xmpp-room:{room})" and str(got[-1]["from"]) == room + "/asky",
          [(str(m["from"]), m["body"]) for m in got])
    got, ok = await alice.until(lambda m: m["type"] == "groupchat" and is_answer(m, "echo:"), timeout=2)
    check("group answer not repeated", not ok, [m["body"] for m in got])

    for u in (alice, bob):
        u.disconnect()
    failed = [n for n, ok in CHECKS if not ok]
    print(f"{len(CHECKS) - len(failed)}/{len(CHECKS)} checks passed", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    for k in ("host", "port", "ca", "bot", "alice", "alice-pw", "bob", "bob-pw", "room"):
        ap.add_argument("--" + k, required=True)
    args = ap.parse_args()
    args.port = int(args.port)
    sys.exit(asyncio.run(main(args)))
