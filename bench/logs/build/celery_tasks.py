"""Celery tasks for an invoice pipeline used to produce worker logs."""
import random, time
from celery import Celery
from celery.utils.log import get_task_logger

app = Celery("invoices", broker="redis://127.0.0.1:6391/0", backend="redis://127.0.0.1:6391/1")
app.conf.update(task_acks_late=True, worker_prefetch_multiplier=1, broker_connection_retry_on_startup=True)
log = get_task_logger(__name__)

@app.task
def render(invoice_id):
    log.info("rendering invoice %s", invoice_id)
    time.sleep(0.01)
    return f"inv-{invoice_id}.pdf"

@app.task(bind=True, max_retries=3, default_retry_delay=0.2)
def charge(self, invoice_id, amount):
    if random.Random(invoice_id * 7 + self.request.retries).random() < 0.35:
        log.warning("payment gateway timeout for invoice %s (attempt %s)", invoice_id, self.request.retries + 1)
        raise self.retry(exc=TimeoutError(f"gateway timeout invoice={invoice_id}"))
    return {"invoice": invoice_id, "charged": amount}

@app.task
def reconcile(batch):
    totals = {k: sum(v) for k, v in batch.items()}
    return totals["EUR"] / totals["USD"]     # KeyError / ZeroDivisionError on some batches

@app.task(time_limit=1, soft_time_limit=0.5)
def export_ledger(n):
    time.sleep(n)
    return n
