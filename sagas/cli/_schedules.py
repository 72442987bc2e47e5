"""`fundsaga schedules ...`: sagas of any registered type started on a cron, in a time zone."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated
from zoneinfo import ZoneInfo

import typer

from sagas.cli._invocation import Invocation
from sagas.cli._options import RequestJson, SagaType, request_fields
from sagas.cli._output import Output, OutputFormat, Shown, emit, listing, said
from sagas.client import Overlap, SagaSchedules, ScheduleView
from sagas.engine import format_duration, parse_duration
from sagas.foundations import InvalidRequestError

app = typer.Typer(
    name="schedules",
    help="Schedules that start sagas of any type: create, list, view, pause, resume, trigger.",
    no_args_is_help=True,
)
ScheduleId = Annotated[str, typer.Argument(help="The schedule's id.", show_default=False)]
Note = Annotated[str, typer.Option("--note", help="Why: kept in the audit record.")]
RequiredNote = Annotated[
    str, typer.Option("--note", help="Why: kept in the audit record.", show_default=False)
]
When = Annotated[
    str, typer.Option(metavar="TIME", help="ISO 8601 with offset, say 2027-03-01T08:00Z.")
]


def _schedules(invocation: Invocation) -> SagaSchedules:
    async def made() -> SagaSchedules:
        return (await invocation.client(with_ledger=True)).schedules()

    return invocation.run(made())


def _moment(text: str, field: str) -> datetime:
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        raise InvalidRequestError(field, f"{text!r} is not an ISO 8601 time") from None
    if moment.tzinfo is None:
        raise InvalidRequestError(field, "needs a UTC offset, say 2027-03-01T08:00Z")
    return moment


@app.command()
def create(
    ctx: typer.Context,
    schedule_id: ScheduleId,
    saga_type: SagaType,
    request: RequestJson,
    cron: Annotated[
        str,
        typer.Option(
            help="When: a cron expression (minute hour day month weekday), or @every 1h.",
            show_default=False,
        ),
    ],
    tz: Annotated[
        str, typer.Option(help="The IANA time zone the cron reads in.", show_default=False)
    ],
    overlap: Annotated[
        Overlap,
        typer.Option(help="While an earlier run's saga still runs.", case_sensitive=False),
    ] = Overlap.ALLOW_ALL,
    catchup_window: Annotated[
        str,
        typer.Option(help="How late a run missed during an outage still starts: 30m, 1d."),
    ] = "1d",
    note: Note = "",
    output: Output = OutputFormat.TABLE,
) -> None:
    """Create a schedule: each local time the cron names in --tz starts one saga of the type,
    key `<id>@<local time>`; the request holds no idempotency_key."""
    invocation = Invocation.of(ctx)
    fields = request_fields(request)
    if "idempotency_key" in fields:
        raise InvalidRequestError("idempotency_key", "a schedule derives it from each run's time")
    window = parse_duration(catchup_window, "catchup_window")
    schedules = _schedules(invocation)
    view = invocation.run(
        schedules.create(
            schedule_id,
            saga_type,
            cron,
            tz,
            fields,
            overlap=overlap,
            catchup_window=window,
            note=note,
        )
    )
    emit(_view_shown(view, f"created schedule {schedule_id}"), output)


@app.command("list")
def list_schedules(ctx: typer.Context, output: Output = OutputFormat.TABLE) -> None:
    """Every schedule of sagas, with its next run."""
    invocation = Invocation.of(ctx)
    found = invocation.run(_schedules(invocation).all())
    records = [
        {
            "schedule_id": s.schedule_id,
            "saga_type": s.saga_type,
            "cron": s.cron,
            "tz": s.zone,
            "paused": s.paused,
            "next_run": s.next_time.isoformat() if s.next_time else "",
        }
        for s in found
    ]
    emit(listing(records, ["schedule_id", "saga_type", "cron", "tz", "paused", "next_run"]), output)


@app.command()
def view(ctx: typer.Context, schedule_id: ScheduleId, output: Output = OutputFormat.TABLE) -> None:
    """The next five runs (in the schedule's zone and in UTC) and the last runs' sagas."""
    invocation = Invocation.of(ctx)
    found = invocation.run(_schedules(invocation).view(schedule_id))
    emit(_view_shown(found, f"schedule {schedule_id}"), output)


@app.command()
def pause(
    ctx: typer.Context,
    schedule_id: ScheduleId,
    note: RequiredNote,
    output: Output = OutputFormat.TABLE,
) -> None:
    """Stop starting runs until resumed; an audit record names you and the note."""
    _set_paused(ctx, schedule_id, note, output, paused=True)


@app.command()
def resume(
    ctx: typer.Context,
    schedule_id: ScheduleId,
    note: RequiredNote,
    output: Output = OutputFormat.TABLE,
) -> None:
    """Start runs again (missed times within the catch-up window run); audited."""
    _set_paused(ctx, schedule_id, note, output, paused=False)


def _set_paused(
    ctx: typer.Context, schedule_id: str, note: str, output: OutputFormat, *, paused: bool
) -> None:
    invocation = Invocation.of(ctx)
    schedules = _schedules(invocation)
    change = schedules.pause if paused else schedules.resume
    invocation.run(change(schedule_id, note))
    done = "paused" if paused else "resumed"
    emit(said(f"{done} {schedule_id}", {"schedule_id": schedule_id, "paused": paused}), output)


@app.command()
def trigger(
    ctx: typer.Context,
    schedule_id: ScheduleId,
    at: Annotated[
        str | None,
        typer.Option(
            metavar="TIME",
            help="Run the schedule's time TIME (a time that ran moves nothing); without it, an "
            "extra run at the current time.",
        ),
    ] = None,
    note: Note = "",
    output: Output = OutputFormat.TABLE,
) -> None:
    """Run the schedule now, or for one of its times; audited."""
    invocation = Invocation.of(ctx)
    moment = _moment(at, "at") if at is not None else None
    schedules = _schedules(invocation)
    invocation.run(schedules.trigger(schedule_id, moment, note))
    when = moment.astimezone(UTC).isoformat() if moment else "now"
    emit(
        said(f"triggered {schedule_id} for {when}", {"schedule_id": schedule_id, "at": when}),
        output,
    )


@app.command()
def backfill(
    ctx: typer.Context,
    schedule_id: ScheduleId,
    start: Annotated[str, typer.Option("--from", metavar="TIME", help="From (with offset).")],
    end: Annotated[str, typer.Option("--to", metavar="TIME", help="To (with offset).")],
    note: Note = "",
    output: Output = OutputFormat.TABLE,
) -> None:
    """Run every time of the schedule between --from and --to; times that ran move nothing."""
    invocation = Invocation.of(ctx)
    since, until = _moment(start, "from"), _moment(end, "to")
    schedules = _schedules(invocation)
    invocation.run(schedules.backfill(schedule_id, since, until, note))
    facts = {"schedule_id": schedule_id, "from": since.isoformat(), "to": until.isoformat()}
    emit(said(f"backfilled {schedule_id} from {since} to {until}", facts), output)


@app.command()
def delete(
    ctx: typer.Context,
    schedule_id: ScheduleId,
    note: Note = "",
    output: Output = OutputFormat.TABLE,
) -> None:
    """Delete the schedule; sagas it started are left as they are. Audited."""
    invocation = Invocation.of(ctx)
    schedules = _schedules(invocation)
    invocation.run(schedules.delete(schedule_id, note))
    emit(said(f"deleted {schedule_id}", {"schedule_id": schedule_id}), output)


def _view_shown(found: ScheduleView, title: str) -> Shown:
    zone = ZoneInfo(found.zone)
    state = "paused" if found.paused else "active"
    lines = [
        f"{title}: {found.saga_type} on '{found.cron}' in {found.zone}, {state}"
        + (f" ({found.note})" if found.note else ""),
        f"overlap {found.overlap}, catch-up window {format_duration(found.catchup_window)}, "
        f"{found.dst_corrections} daylight-saving corrections",
        "next runs:",
        *(
            f"  {_local(t, zone)}  ({t.astimezone(UTC):%Y-%m-%d %H:%M:%S} UTC)"
            for t in found.next_times
        ),
        "last runs:" if found.recent else "no runs yet",
    ]
    rows = [
        [r.local_time, r.scheduled_at.astimezone(UTC).isoformat(), r.saga_id, r.status]
        for r in found.recent
    ]
    data = {
        "schedule_id": found.schedule_id,
        "saga_type": found.saga_type,
        "cron": found.cron,
        "tz": found.zone,
        "paused": found.paused,
        "note": found.note,
        "overlap": found.overlap,
        "catchup_window_seconds": int(found.catchup_window.total_seconds()),
        "dst_corrections": found.dst_corrections,
        "next_runs": [t.astimezone(UTC).isoformat() for t in found.next_times],
        "last_runs": [
            {
                "local_time": r.local_time,
                "scheduled_at": r.scheduled_at.astimezone(UTC).isoformat(),
                "saga_id": r.saga_id,
                "status": r.status,
            }
            for r in found.recent
        ],
    }
    columns = ["local time", "scheduled (UTC)", "saga id", "status"] if rows else []
    return Shown(data=data, lines=lines, columns=columns, rows=rows)


def _local(moment: datetime, zone: ZoneInfo) -> str:
    return f"{moment.astimezone(zone):%Y-%m-%d %H:%M:%S %Z}"
