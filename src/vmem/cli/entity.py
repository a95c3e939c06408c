"""`vmem entity add|list|show` and `vmem episode add`: customers and what they said, without writing YAML."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from vmem.cli.common import JsonOpt, StoreOpt, session
from vmem.output import counted, safe

entity_app = typer.Typer(help="Customers (entities): the de-identification lexicon and the category floor.",
                         no_args_is_help=True)
episode_app = typer.Typer(help="Episodes: a call, e-mail or note with a customer, and its verbatim quotes.",
                          no_args_is_help=True)

Many = Optional[list[str]]


@entity_app.command("add")
def add(
    ctx: typer.Context,
    entity_id: Annotated[str, typer.Argument(metavar="ID", help="Short id: a-z, 0-9, '-', '_' (acme-health).")],
    name: Annotated[str, typer.Option("--name", help="The customer's full name (Acme Health Inc).")],
    alias: Annotated[Many, typer.Option("--alias", help="Another name: short name, ticker, former name "
                                                        "(repeatable).")] = None,
    domain: Annotated[Many, typer.Option("--domain", help="A web or e-mail domain (acme-health.com; "
                                                          "repeatable).")] = None,
    person: Annotated[Many, typer.Option("--person", metavar="'NAME [<EMAIL>]'",
                                         help="A contact; only the name is kept (repeatable).")] = None,
    category: Annotated[Many, typer.Option("--category", "-c", metavar="FACET:VALUE",
                                           help="industry:healthcare, segment:enterprise, region:emea "
                                                "(repeatable).")] = None,
    restricted: Annotated[Many, typer.Option("--restricted", metavar="VALUE",
                                             help="An identifying value: an amount, a date, a contract number "
                                                  "(repeatable).")] = None,
    json_: JsonOpt = False,
    store: StoreOpt = None,
) -> None:
    """Add a customer: one commit writing entities/ID.yaml.

    The file holds id, name, aliases, domains, people, categories and restricted values. Names, aliases,
    domains, people and restricted values are the de-identification lexicon: knowledge that mentions them
    (in any spelling the gate reads) is quarantined, from the next command on. Categories feed the knowledge
    gate's category-size floor and the merge blocker.
    """
    with session(ctx, json_, store) as s:
        from vmem.ops.entity import add_entity

        added = add_entity(s.store, entity_id, name=name, aliases=alias, domains=domain, people=person,
                           categories=category, restricted=restricted)

        def human(console) -> None:
            data = added.data
            console.print(f"[green]added customer[/] {data['id']} ({safe(data['name'])}): "
                          f"{counted(len(data['aliases']), 'alias', 'aliases')}, "
                          f"{counted(len(data['domains']), 'domain')}, "
                          f"{counted(len(data['people']), 'person', 'people')}, "
                          f"{counted(len(data['restricted']), 'restricted value')}; commit {added.commit[:10]}",
                          soft_wrap=True)
            s.out.info(f"next: vmem episode add {data['id']} --kind call --quote '...'")

        s.out.result({"entity": added.data, "path": added.path, "commit": added.commit}, human)


@entity_app.command("list")
def list_(ctx: typer.Context, json_: JsonOpt = False, store: StoreOpt = None) -> None:
    """Every customer in the store, with its categories and how many aliases, people and episodes it has."""
    with session(ctx, json_, store) as s:
        from vmem.ops.entity import list_entities

        rows = list_entities(s.store)

        def human(console) -> None:
            from rich.table import Table

            if not rows:
                console.print("no customers yet")
                s.out.info("add one: vmem entity add acme --name 'Acme Health' -c industry:healthcare")
                return
            table = Table("id", "name", "categories", "aliases", "people", "episodes", "counted", box=None)
            for row in rows:
                table.add_row(row["id"], safe(row["name"]), safe(", ".join(row["categories"])), str(row["aliases"]),
                              str(row["people"]), str(row["episodes"]), "yes" if row["counted"] else "awaiting")
            console.print(table)
            if not all(row["counted"] for row in rows):
                s.out.info("a customer 'awaiting' a reviewer is in the de-id lexicon but counts toward no support "
                           "or category floor until: vmem entity approve ID")

        s.out.result(rows, human)


@entity_app.command("approve")
def approve(ctx: typer.Context,
            entity_ids: Annotated[list[str], typer.Argument(metavar="ID...", help="The customers' ids.")],
            json_: JsonOpt = False,
            store: StoreOpt = None) -> None:
    """Count customers toward support and the category floor (reviewers only): one commit, no file changed.

    A customer added by an analyst is screened for at once, but counts toward no learning's support (k) and no
    category's size until a reviewer approves it, so near-duplicates of one customer cannot vote twice.
    """
    with session(ctx, json_, store) as s:
        from vmem.ops.entity import approve_entities

        done = approve_entities(s.store, entity_ids)
        s.out.result(done, lambda console: console.print(
            f"[green]approved[/] {', '.join(done['approved'])} as customers; commit {done['commit'][:10]}",
            soft_wrap=True))


@entity_app.command("show")
def show(ctx: typer.Context,
         entity_id: Annotated[str, typer.Argument(metavar="ID", help="The customer's id (its file under entities/).")],
         json_: JsonOpt = False,
         store: StoreOpt = None) -> None:
    """One customer as stored, with its episodes."""
    with session(ctx, json_, store) as s:
        from vmem.ops.entity import show_entity

        data = show_entity(s.store, entity_id)

        def human(console) -> None:
            escape = safe
            console.print(f"[bold]{escape(data['id'])}[/]  {escape(data['name'])}")
            for field in ("aliases", "domains", "people", "categories", "restricted"):
                if data.get(field):
                    console.print(f"  {field}: " + escape(", ".join(data[field])))
            for episode in data["episodes"]:
                console.print(f"  episode {escape(episode['id'])} ({episode['kind']}, {episode.get('at') or '-'}):"
                              f" {len(episode.get('quotes') or [])} quotes")
                for quote in episode.get("quotes") or []:
                    console.print(f"    “{escape(quote)}”")

        s.out.result(data, human)


@episode_app.command("add")
def add_episode(
    ctx: typer.Context,
    entity_id: Annotated[str, typer.Argument(metavar="ENTITY", help="The customer (see: vmem entity list).")],
    quote: Annotated[Many, typer.Option("--quote", help="A verbatim quote (repeatable); knowledge may never "
                                                        "repeat it.")] = None,
    kind: Annotated[str, typer.Option("--kind", metavar="call|email|note|session")] = "note",
    at: Annotated[Optional[str], typer.Option("--at", metavar="WHEN", help="When it happened (ISO date or "
                                                                          "time; default now).")] = None,
    ref: Annotated[Optional[str], typer.Option("--ref", help="Where the original lives (crm://calls/123).")] = None,
    episode_id: Annotated[Optional[str], typer.Option("--id", help="Episode id (default ep-<random>).")] = None,
    json_: JsonOpt = False,
    store: StoreOpt = None,
) -> None:
    """Record a call, e-mail or note with a customer: one commit writing episodes/ENTITY/ID.yaml.

    Learnings cite it with `vmem propose --from ENTITY --episode ID`; its quotes join the de-identification
    lexicon (a learning that repeats or closely paraphrases one is quarantined).
    """
    with session(ctx, json_, store) as s:
        from vmem.ops.entity import add_episode as run

        added = run(s.store, entity_id, quotes=quote, kind=kind, at=at, ref=ref, episode_id=episode_id)

        def human(console) -> None:
            data = added.data
            console.print(f"[green]added {data['kind']}[/] {data['id']} for {data['entity']}: "
                          f"{len(data['quotes'])} quotes; commit {added.commit[:10]}", soft_wrap=True)
            s.out.info(f"next: vmem propose 'what you learned' --from {data['entity']} --episode {data['id']} "
                       "-c facet:value")

        s.out.result({"episode": added.data, "path": added.path, "commit": added.commit}, human)
