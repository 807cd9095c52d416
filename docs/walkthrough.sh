#!/usr/bin/env bash
# The README's walk-through, as a script that checks every answer: run it against a started
# service (`make run`, or any instance) and it stops at the first answer that differs.
#
#   SLOTKEEPER_CLIENT_TOKEN=… SLOTKEEPER_OPERATOR_TOKEN=… docs/walkthrough.sh
#
# SLOTKEEPER_URL is the service's base URL (default localhost:8080). Every write carries an
# Idempotency-Key, so running the script again replays the same answers and changes nothing.
# Needs bash and curl. WalkthroughIT runs it in `make test`; its curl lines are the README's.
set -euo pipefail

B=${SLOTKEEPER_URL:-localhost:8080}
: "${SLOTKEEPER_CLIENT_TOKEN:?set SLOTKEEPER_CLIENT_TOKEN}"
: "${SLOTKEEPER_OPERATOR_TOKEN:?set SLOTKEEPER_OPERATOR_TOKEN}"
C="Authorization: Bearer $SLOTKEEPER_CLIENT_TOKEN"
O="Authorization: Bearer $SLOTKEEPER_OPERATOR_TOKEN"
J="Content-Type: application/json"

T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

# Each curl line below runs through this function: it keeps the answer's status, headers and body
# for the checks, and prints the body.
curl() {
  command curl -sS -o "$T/body" -D "$T/headers" -w '%{http_code}' "$@" >"$T/status"
  printf '%s %s\n' "$(cat "$T/status")" "$(tr -d '\r' <"$T/body" | tr '\n' ' ' | head -c 300)"
}
expect() {
  if [ "$(cat "$T/status")" != "$1" ]; then
    echo "walkthrough: expected $1, got $(cat "$T/status"): $(cat "$T/body")" >&2
    exit 1
  fi
  if [ $# -gt 1 ] && ! grep -qF -- "$2" "$T/body" "$T/headers"; then
    echo "walkthrough: the answer lacks $2: $(cat "$T/headers" "$T/body")" >&2
    exit 1
  fi
}
# A string field of the JSON body, or the path in the Location header minus its prefix.
field() { tr -d '\r\n' <"$T/body" | sed -n "s/.*\"$1\":\"\([^\"]*\)\".*/\1/p"; }
located() { tr -d '\r' <"$T/headers" | sed -n "s#^[Ll]ocation: $1##p"; }

# Receive stock first: the order-fulfilment job (every 10 s) fails an order it cannot reserve.
curl -X POST $B/v1/inventory/TEA-1/receipts -H "$C" -H "$J" -H "Idempotency-Key: rcpt-1" -d '{"qty":10}'
expect 200 '"available":10'

# Place an order. The order ID derives from the Idempotency-Key when you give none.
curl -i -X POST $B/v1/orders -H "$C" -H "$J" -H "Idempotency-Key: order-7f3a" \
  -d '{"customerId":"c-1","currency":"CNY","items":[{"sku":"TEA-1","qty":2,"unitPriceCents":1500}]}'
expect 201 '"status":"NEW"'
ORDER=$(located /v1/orders/)

# The same request again (a retry, a double click): the first answer, replayed; no second order.
curl -i -X POST $B/v1/orders -H "$C" -H "$J" -H "Idempotency-Key: order-7f3a" \
  -d '{"customerId":"c-1","currency":"CNY","items":[{"sku":"TEA-1","qty":2,"unitPriceCents":1500}]}'
expect 201 'Idempotent-Replayed: true'

# The same key with another body: 422 (problem+json).
curl -i -X POST $B/v1/orders -H "$C" -H "$J" -H "Idempotency-Key: order-7f3a" \
  -d '{"customerId":"c-2","currency":"CNY","items":[{"sku":"TEA-1","qty":1,"unitPriceCents":1500}]}'
expect 422

# Read the order at its Location, at once: the service waits for its read model (read your writes).
curl -s $B/v1/orders/$ORDER -H "$C"
expect 200 '"customerId":"c-1"'

# The order-fulfilment job processes NEW orders every 10 s; an operator can run it for one order now.
curl -s -X POST $B/v1/orders/$ORDER/process -H "$O" -H "Idempotency-Key: proc-1"
expect 200 '"status":"COMPLETED"'
# The stock and its change log (the read model; the flow's changes show within milliseconds).
curl -s $B/v1/inventory/TEA-1 -H "$C"
expect 200 '"sku":"TEA-1"'
curl -s $B/v1/inventory/TEA-1/log -H "$C"
expect 200 '"entries":'

# A refund of the COMPLETED order; its ID derives from the order and the key. Too much is 422.
curl -s -X POST $B/v1/orders/$ORDER/refunds -H "$C" -H "$J" -H "Idempotency-Key: refund-1" \
  -d '{"amountCents":1000,"reason":"damaged"}'
expect 201 '"status":"REQUESTED"'
REFUND=$(field refundId)
curl -s -X POST $B/v1/orders/$ORDER/refunds -H "$C" -H "$J" -H "Idempotency-Key: refund-2" \
  -d '{"amountCents":999999,"reason":"too much"}'
expect 422
# The refund-settlement job issues it within 30 s, or an operator now (a second call pays nothing more).
curl -s -X POST $B/v1/refunds/$REFUND/issue -H "$O" -H "Idempotency-Key: issue-1"
expect 200 '"status":"ISSUED"'
curl -s $B/v1/refunds/$REFUND -H "$C"
expect 200 '"status":"ISSUED"'

# Cancel a NEW order; cancelling again under a new key is 409 "cannot cancel order …: it is CANCELLED".
curl -i -X POST $B/v1/orders -H "$C" -H "$J" -H "Idempotency-Key: order-8b2c" \
  -d '{"customerId":"c-1","currency":"CNY","items":[{"sku":"TEA-1","qty":1,"unitPriceCents":1500}]}'
expect 201
OTHER=$(located /v1/orders/)
curl -s -X POST $B/v1/orders/$OTHER/cancel -H "$C" -H "$J" -H "Idempotency-Key: cancel-1" -d '{"reason":"changed mind"}'
expect 200 '"status":"CANCELLED"'
curl -s -X POST $B/v1/orders/$OTHER/cancel -H "$C" -H "$J" -H "Idempotency-Key: cancel-2" -d '{}'
expect 409 'it is CANCELLED'

# The jobs, their lease holders, next slots and last runs; a manual run of one slot; a backfill.
curl -s $B/v1/jobs -H "$O"
expect 200 '"daily-report"'
curl -s -X POST $B/v1/jobs/daily-report/runs -H "$O" -H "$J" -H "Idempotency-Key: run-1" \
  -d '{"slot":"2026-11-28T16:05:00Z"}'
expect 200
curl -s -X POST $B/v1/jobs/daily-report/runs -H "$O" -H "$J" -H "Idempotency-Key: run-2" \
  -d '{"slot":"2026-11-28T16:05:00Z"}'
expect 200 '"duplicate":true'
curl -s -X POST $B/v1/jobs/retention-cleanup/backfill -H "$O" -H "$J" -H "Idempotency-Key: bf-1" \
  -d '{"from":"2026-11-20T00:00:00Z","to":"2026-11-20T06:00:00Z","dryRun":true}'
expect 200

# Every stored event, filtered; health, metrics and this API's description.
curl -s "$B/v1/events?after=0&limit=100&aggregateType=Inventory" -H "$C"
expect 200 '"type":"StockReceived"'
curl -s $B/health/ready
expect 200 '"status":"UP"'
curl -s $B/metrics
expect 200 'slotkeeper_slots_total'
curl -s $B/openapi.yaml
expect 200 'openapi: 3'

echo "walkthrough: every step answered as expected"
