using System.Globalization;
using ConcurrencySandbox.Api.Swagger;
using ConcurrencySandbox.Contracts.Machine;
using ConcurrencySandbox.Contracts.ThreadPools;
using ConcurrencySandbox.Contracts.Work;
using ConcurrencySandbox.Experiments.ThreadPools;
using ConcurrencySandbox.Experiments.Work;
using ConcurrencySandbox.Validation;
using Microsoft.AspNetCore.Http.HttpResults;
using Microsoft.Extensions.Options;

namespace ConcurrencySandbox.Api.Work;

/// <summary>Seed 004 as a service: compute, spinwait and sleep, inline vs Task.Run, one run, a compare row or a whole sweep.</summary>
public static class WorkEndpoints
{
    private static readonly ChoiceParameter Format = new(
        "format",
        ["json", "csv", "markdown"],
        "json",
        "Output form. Without it the Accept header decides (text/csv, text/markdown), else JSON.");

    public static WebApplicationBuilder AddWorkExperiments(this WebApplicationBuilder builder)
    {
        builder.Services.AddDeclaredSettings<WorkLimits, WorkLimitsValidator>(builder.Configuration, WorkLimits.SectionName);
        return builder;
    }

    public static IEndpointRouteBuilder MapWorkExperiments(this IEndpointRouteBuilder endpoints)
    {
        var limits = endpoints.ServiceProvider.GetRequiredService<IOptions<WorkLimits>>().Value;
        var repeat = new IntegerParameter("repeat", 1, limits.MaxRepeat, 5, "How many times each form runs; medians are reported.");
        var sweepRepeat = repeat with { Default = 3 };
        var factor = new IntegerParameter("factor", 2, 1000, 10, "Each amount of the sweep is the previous one times this.");

        foreach (var family in WorkFamily.Create(limits))
        {
            var unit = family.Unit;
            var group = endpoints.MapGroup($"/api/{unit.Name}").WithApiTag(family.Tag);

            foreach (var mode in unit.Modes)
            {
                var modeName = ModeName(mode);
                group.MapGet($"/{modeName}", (HttpRequest request, CancellationToken cancellationToken) => RunAsync(family, mode, request, cancellationToken))
                    .WithName($"{family.Tag.Name}{mode}")
                    .WithSummary($"Runs {family.UnitDescription} twice, {ModeDescription(mode)}.")
                    .WithDescription("Returns the server-side elapsed time, the managed thread ids that ran the units and the thread pool's state after the run.")
                    .WithQueryParameters(family.Amount);
            }

            group.MapGet("/compare", (HttpRequest request, CancellationToken cancellationToken) => CompareAsync(family, repeat, request, cancellationToken))
                .WithName($"{family.Tag.Name}Compare")
                .WithSummary($"Seed 004's row: {unit.Name} inline vs Task.Run, back to back in the server.")
                .WithDescription("Warms up, then alternates the sync and Task.Run forms `repeat` times. efficiencyPercent = sync / Task.Run x 100: above 100 Task.Run paid off. taskRunAddedSeconds is Task.Run's extra cost.")
                .WithQueryParameters(family.Amount, repeat);

            group.MapGet("/sweep", (HttpRequest request, CancellationToken cancellationToken) => SweepAsync(family, factor, sweepRepeat, request, cancellationToken))
                .WithName($"{family.Tag.Name}Sweep")
                .WithSummary($"Seed 004's whole table for {unit.Name}: a compare row per amount, with the break-even point.")
                .WithDescription("Amounts go from `from` to `to`, multiplied by `factor`. The Markdown form has the seed's columns and the seed's figures beside today's.")
                .WithQueryParameters(family.SweepFrom, family.SweepTo, factor, sweepRepeat, Format)
                .ProducesJsonOrText<SweepReport>("text/csv", "text/markdown");
        }

        return endpoints;
    }

    private static async Task<Results<Ok<WorkRunResponse>, ValidationProblem>> RunAsync(
        WorkFamily family, RunMode mode, HttpRequest request, CancellationToken cancellationToken)
    {
        var query = new QueryReader(request);
        var amount = query.Read(family.Amount);
        if (!query.IsValid)
        {
            return query.Problem();
        }

        var requestThreadId = Environment.CurrentManagedThreadId;
        var run = await WorkRunner.RunTwiceAsync(family.Unit, mode, amount, cancellationToken);
        var machine = MachineInfo.Current;
        return TypedResults.Ok(new WorkRunResponse(
            family.Unit.Name,
            ModeName(mode),
            amount,
            family.Unit.AmountName,
            run.ElapsedSeconds,
            machine.ProcessorCount,
            machine.IsServerGC,
            run.ThreadIds,
            requestThreadId,
            ThreadPoolSnapshot.Capture()));
    }

    private static async Task<Results<Ok<CompareResponse>, ValidationProblem>> CompareAsync(
        WorkFamily family, IntegerParameter repeatParameter, HttpRequest request, CancellationToken cancellationToken)
    {
        var query = new QueryReader(request);
        var amount = query.Read(family.Amount);
        var repeat = (int)query.Read(repeatParameter);
        if (!query.IsValid)
        {
            return query.Problem();
        }

        var row = await Comparison.CompareAsync(family.Unit, amount, repeat, cancellationToken);
        return TypedResults.Ok(CompareAnswer(family.Unit, row, MachineInfo.Current.ProcessorCount));
    }

    /// <summary>The compare answer for <paramref name="row"/>, its figures flagged against <paramref name="processorCount"/> cores.</summary>
    public static CompareResponse CompareAnswer(WorkUnit unit, ComparisonRow row, int processorCount) =>
        new(
            unit.Name,
            unit.AmountName,
            row.Amount,
            row.Repeat,
            row.SyncSeconds,
            row.TaskRunSeconds,
            row.EfficiencyPercent,
            row.TaskRunAddedSeconds,
            row.Sync,
            row.TaskRun,
            row.Seed,
            processorCount,
            row.Flags(unit.AmountName, processorCount));

    private static async Task<Results<Ok<SweepReport>, ContentHttpResult, ValidationProblem>> SweepAsync(
        WorkFamily family, IntegerParameter factorParameter, IntegerParameter repeatParameter, HttpRequest request, CancellationToken cancellationToken)
    {
        var query = new QueryReader(request);
        var from = query.Read(family.SweepFrom);
        var to = query.Read(family.SweepTo);
        var factor = query.Read(factorParameter);
        var repeat = (int)query.Read(repeatParameter);
        var format = request.Query.ContainsKey(Format.Name) ? query.Read(Format) : FormatFromAccept(request);
        if (query.IsValid && from > to)
        {
            query.Fail("from", $"'from' ({from}) must not be greater than 'to' ({to}).");
        }

        var amounts = query.IsValid ? Sweep.Amounts(from, to, factor) : [];
        var totalWork = amounts.Sum(a => (decimal)a) * repeat;
        if (query.IsValid && totalWork > family.MaxSweepTotal)
        {
            query.Fail(
                "to",
                $"This sweep asks for {totalWork.ToString(CultureInfo.InvariantCulture)} {family.Unit.AmountName} in total (sum of amounts x repeat); " +
                $"the limit is {family.MaxSweepTotal.ToString(CultureInfo.InvariantCulture)} ({family.MaxSweepSetting}). Lower 'to' or 'repeat'.");
        }

        if (!query.IsValid)
        {
            return query.Problem();
        }

        var report = await Sweep.RunAsync(family.Unit, amounts, repeat, cancellationToken);
        return format switch
        {
            "csv" => TypedResults.Text(SweepFormat.ToCsv(report), "text/csv"),
            "markdown" => TypedResults.Text(SweepFormat.ToMarkdown(report), "text/markdown"),
            _ => TypedResults.Ok(report),
        };
    }

    private static string FormatFromAccept(HttpRequest request)
    {
        var accept = request.GetTypedHeaders().Accept;
        return accept.Any(a => a.MediaType.Equals("text/csv", StringComparison.OrdinalIgnoreCase)) ? "csv"
            : accept.Any(a => a.MediaType.Equals("text/markdown", StringComparison.OrdinalIgnoreCase)) ? "markdown"
            : "json";
    }

    private static string ModeName(RunMode mode) => mode.ToString().ToLowerInvariant();

    private static string ModeDescription(RunMode mode) => mode switch
    {
        RunMode.Sync => "one after the other on the request's thread",
        RunMode.TaskRun => "as two Task.Run work items on the ThreadPool, awaited together",
        RunMode.Async => "as two awaited Task.Delay calls: no thread is held while waiting",
        _ => throw new ArgumentOutOfRangeException(nameof(mode), mode, null),
    };
}
