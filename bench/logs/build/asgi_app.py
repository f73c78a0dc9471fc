"""Small starlette shop API used to produce uvicorn logs."""
import asyncio, json, logging, random
from starlette.applications import Starlette
from starlette.responses import JSONResponse
from starlette.routing import Route
from starlette.exceptions import HTTPException

log = logging.getLogger("shop")
STOCK = {i: random.Random(i).randint(0, 20) for i in range(1, 200)}

async def item(request):
    iid = int(request.path_params["iid"])
    if iid not in STOCK:
        raise HTTPException(404, f"item {iid} not found")
    log.debug("lookup item %s -> %s", iid, STOCK[iid])
    return JSONResponse({"id": iid, "stock": STOCK[iid]})

async def order(request):
    body = await request.json()
    iid, qty = body["item"], body["qty"]
    if STOCK[iid] < qty:
        log.warning("insufficient stock for item %s: have %s want %s", iid, STOCK[iid], qty)
        return JSONResponse({"error": "insufficient stock"}, status_code=409)
    STOCK[iid] -= qty
    log.info("order placed item=%s qty=%s", iid, qty)
    return JSONResponse({"ok": True})

async def report(request):
    # bug: division by zero when a category is empty
    cat = int(request.query_params.get("cat", "1"))
    items = [v for k, v in STOCK.items() if k % 10 == cat]
    return JSONResponse({"avg": sum(items) / len(items)})

async def slow(request):
    await asyncio.sleep(float(request.query_params.get("s", "0.2")))
    return JSONResponse({"slept": True})

app = Starlette(routes=[Route("/items/{iid}", item), Route("/orders", order, methods=["POST"]),
                        Route("/report", report), Route("/slow", slow)])
