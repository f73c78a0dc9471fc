"""Tornado chat-room API used to produce tornado's own log format."""
import asyncio, json, logging, sys
import tornado.web, tornado.options, tornado.log
rooms = {"general": [], "random": []}
app_log = logging.getLogger("tornado.application")

class Room(tornado.web.RequestHandler):
    def get(self, name):
        if name not in rooms:
            raise tornado.web.HTTPError(404, "room %s", name)
        self.write({"room": name, "messages": rooms[name][-5:]})
    def post(self, name):
        msg = json.loads(self.request.body)          # JSONDecodeError on bad bodies
        if len(msg["text"]) > 40:
            app_log.warning("message too long in %s (%d chars), truncating", name, len(msg["text"]))
        rooms[name].append(msg["text"][:40])          # KeyError for unknown rooms
        self.set_status(201)

class Stats(tornado.web.RequestHandler):
    async def get(self):
        await asyncio.sleep(0.05)
        per_room = {k: len(v) for k, v in rooms.items()}
        self.write({"avg": sum(per_room.values()) / (len(per_room) - 2)})   # ZeroDivisionError

async def main():
    tornado.options.parse_command_line(["x", "--logging=debug"])
    app = tornado.web.Application([(r"/rooms/(\w+)", Room), (r"/stats", Stats)], debug=False)
    app.listen(int(sys.argv[1]))
    await asyncio.Event().wait()

asyncio.run(main())
