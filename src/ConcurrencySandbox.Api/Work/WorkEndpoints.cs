using System.Globalization;
using ConcurrencySandbox.Api.Swagger;
using ConcurrencySandbox.Contracts.ThreadPools;
using ConcurrencySandbox.Contracts.Work;
using ConcurrencySandbox.Experiments.Work;
using ConcurrencySandbox.Platform.Machine;
using ConcurrencySandbox.Platform.Statistics;
using ConcurrencySandbox.Validation;
using Microsoft.AspNetCore.Http.HttpResults;

namespace ConcurrencySandbox.Api.Work;

/// <summary>Seed 004 as a service: compute, spinwait and sleep, inline vs Task.Run, one run, a compare row or a whole sweep.</summary>
public static class WorkEndpoints
{
    public static WebApplicationBuilder AddWorkExperiments(this WebApplicationBuilder builder)
    {
        builder.Services.AddDeclaredSettings<WorkLimits, WorkLimitsValidator>(builder.Configuration, WorkLimits.SectionName);
        builder.Services.AddSingleton<WorkParameters>();
        return builder;
    }

    public static IEndpointRouteBuilder MapWorkExperiments(this IEndpointRouteBuilder endpoints)
    {
        foreach (var family in WorkFamily.All)
        {
            var unit = family.Unit;
            var group = endpoints.MapGroup($"/api/{unit.Name}").WithApiTag(family.Tag);

            foreach (var mode in unit.Modes)
            {
                var modeName = ModeName(mode);
                // Sync answers without a task: its units run inline, so the cheapest endpoint carries no async machinery of its own.
                Delegate run = mode == RunMode.Sync
                    ? (WorkRunQuery query, CancellationToken cancellationToken) => RunInline(family, modeName, query, cancellationToken)
                    : (WorkRunQuery query, CancellationToken cancellationToken) => RunAsync(family, mode, modeName, query, cancellationToken);
                group.MapGet($"/{modeName}", run)
                    .WithName($"{family.Tag.Name}{mode}")
                    .WithSummary($"Runs {family.UnitDescription} twice, {ModeDescription(mode)}.")
                    .WithDescription("Returns the server-side elapsed time, the managed thread ids that ran the units and the thread pool's state after the run.")
                    .WithQueryParameters<WorkParameters>(parameters => parameters.Run(family))
                    .Produces<WorkRunResponse>();
            }

            group.MapGet("/compare", (WorkCompareQuery query, CancellationToken cancellationToken) => CompareAsync(family, query, cancellationToken))
                .WithName($"{family.Tag.Name}Compare")
                .WithSummary($"Seed 004's row: {unit.Name} inline vs Task.Run, back to back in the server.")
                .WithDescription("Warms up until the per-run time stops improving (final JIT tier), then runs sync and Task.Run in interleaved pairs (AB BA ...) until each median's and the efficiency's 95 % CI is within +-ciWidth % or budgetSeconds is spent. " +
                    "efficiency = total sync time / total Task.Run time x 100 over the pairs, its 95 % CI a ratio estimator's over 10 batches of pairs: above 100 Task.Run paid off. Every figure carries median (for the efficiency: the ratio), 95 % CI, n and min; the machine's load (other processes, steal, CFS throttling) and speed drift are given beside them.")
                .WithQueryParameters<WorkParameters>(parameters => parameters.Compare(family));

            group.MapGet("/sweep", (WorkSweepQuery query, WorkParameters parameters, HttpRequest request, CancellationToken cancellationToken) => SweepAsync(family, parameters.MaxSweepTotal(family), query, request, cancellationToken))
                .WithName($"{family.Tag.Name}Sweep")
                .WithSummary($"Seed 004's whole table for {unit.Name}: a compare row per amount, with the break-even point.")
                .WithDescription("Amounts go from `from` to `to`, multiplied by `factor`. Each row is warmed up once, then the rows are measured in rounds: each round gives every row that has not converged 2 pairs (AB BA), the rows in a shuffled order, so every row's pairs span the whole sweep and a change in the machine's speed hits all rows; no row stops as converged before half of budgetSeconds has passed. " +
                    "The break-even is a bracket: between the largest amount whose efficiency's whole CI is at or below 95 % and the smallest from which every row's whole CI is at least 105 % (breakEvenAmount; a row whose CI reaches into 95-105 % is at the crossing, inside the bracket); a row that cannot be placed (impossible, or no CI) widens it instead of moving it, and such rows inside it are measured again within a quarter of the budget on top. The Markdown form has the seed's columns and the seed's figures beside today's.")
                .WithQueryParameters<WorkParameters>(parameters => parameters.Sweep(family))
                .ProducesJsonOrText<SweepReport>("text/csv", "text/markdown");
        }

        return endpoints;
    }

    private static JsonHttpResult<WorkRunResponse> RunInline(WorkFamily family, string modeName, WorkRunQuery query, CancellationToken cancellationToken)
    {
        var requestThreadId = Environment.CurrentManagedThreadId;
        return Answer(family, modeName, requestThreadId, WorkRunner.RunTwiceInline(family.Unit, query.Amount, cancellationToken));
    }

    private static async Task<JsonHttpResult<WorkRunResponse>> RunAsync(WorkFamily family, RunMode mode, string modeName, WorkRunQuery query, CancellationToken cancellationToken)
    {
        var requestThreadId = Environment.CurrentManagedThreadId;
        return Answer(family, modeName, requestThreadId, await WorkRunner.RunTwiceAsync(family.Unit, mode, query.Amount, cancellationToken));
    }

    private static JsonHttpResult<WorkRunResponse> Answer(WorkFamily family, string modeName, int requestThreadId, WorkRun run)
    {
        var machine = CurrentMachine.Info;
        return TypedResults.Json(new WorkRunResponse(
            family.Unit.Name,
            modeName,
            run.Amount,
            family.Unit.AmountName,
            run.ElapsedSeconds,
            machine.ProcessorCount,
            machine.IsServerGC,
            run.ThreadIds,
            requestThreadId,
            ThreadPoolSnapshot.Capture()), WorkJson.Default.WorkRunResponse);
    }

    private static async Task<Ok<CompareResponse>> CompareAsync(WorkFamily family, WorkCompareQuery query, CancellationToken cancellationToken)
    {
        var policy = Policy(query.CiWidth, query.BudgetSeconds, query.Repeat);
        var row = await Comparison.CompareAsync(family.Unit, query.Amount, policy, cancellationToken);
        return TypedResults.Ok(CompareAnswer(family.Unit, row, CurrentMachine.Info.ProcessorCount, policy));
    }

    /// <summary>The compare answer for <paramref name="row"/>, measured under <paramref name="policy"/>, its figures flagged against <paramref name="processorCount"/> cores.</summary>
    public static CompareResponse CompareAnswer(WorkUnit unit, ComparisonRow row, int processorCount, MeasurementPolicy policy) =>
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
            row.Efficiency,
            row.Stopped,
            row.Remeasured,
            row.Load,
            row.Speed,
            row.Seed,
            processorCount,
            policy.Describe(),
            row.Flags(unit.AmountName, processorCount));

    private static async Task<Results<Ok<SweepReport>, ContentHttpResult, ValidationProblem>> SweepAsync(
        WorkFamily family, long maxSweepTotal, WorkSweepQuery query, HttpRequest request, CancellationToken cancellationToken)
    {
        if (query.From > query.To)
        {
            return QueryReader.Refuse("from", $"'from' ({query.From}) must not be greater than 'to' ({query.To}).");
        }

        var amounts = Sweep.Amounts(query.From, query.To, query.Factor);
        var totalWork = amounts.Sum(a => (decimal)a) * query.Repeat;
        if (totalWork > maxSweepTotal)
        {
            return QueryReader.Refuse(
                "to",
                $"This sweep asks for {totalWork.ToString(CultureInfo.InvariantCulture)} {family.Unit.AmountName} in total (sum of amounts x repeat); " +
                $"the limit is {maxSweepTotal.ToString(CultureInfo.InvariantCulture)} ({WorkLimits.SectionName}:{family.MaxSweepSetting}). Lower 'to' or 'repeat'.");
        }

        var report = await Sweep.RunAsync(family.Unit, amounts, Policy(query.CiWidth, query.BudgetSeconds, query.Repeat), cancellationToken);
        return (query.Format ?? FormatFromAccept(request)) switch
        {
            "csv" => TypedResults.Text(SweepFormat.ToCsv(report), "text/csv"),
            "markdown" => TypedResults.Text(SweepFormat.ToMarkdown(report), "text/markdown"),
            _ => TypedResults.Ok(report),
        };
    }

    private static MeasurementPolicy Policy(double ciWidth, double budgetSeconds, int repeat) => new(ciWidth, TimeSpan.FromSeconds(budgetSeconds), repeat);

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

/// <summary>One run's input: the amount, sent as cycles, iterations or milliseconds after the unit.</summary>
internal sealed record WorkRunQuery(long Amount) : DeclaredQuery<WorkRunQuery>;

/// <summary>A compare row's inputs: the amount (named after the unit) and the measurement policy.</summary>
internal sealed record WorkCompareQuery(long Amount, int Repeat, double CiWidth, double BudgetSeconds) : DeclaredQuery<WorkCompareQuery>;

/// <summary>A sweep's inputs; without a format the Accept header chooses one.</summary>
internal sealed record WorkSweepQuery(long From, long To, long Factor, int Repeat, double CiWidth, double BudgetSeconds, string? Format) : DeclaredQuery<WorkSweepQuery>;
