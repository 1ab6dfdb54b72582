using System.Globalization;
using ConcurrencySandbox.Api.Swagger;
using ConcurrencySandbox.Contracts.Receive;
using ConcurrencySandbox.Experiments.Receive;
using ConcurrencySandbox.Validation;
using Microsoft.AspNetCore.Http.HttpResults;
using Microsoft.Extensions.Options;

namespace ConcurrencySandbox.Api.Receive;

/// <summary>Seed 002 as a service: the cost of one receive over loopback TCP, per-call objects and spinning vs a reused buffer and a blocking wait.</summary>
public static class ReceiveEndpoints
{
    private static readonly ApiTag Tag = new(
        "Receive",
        "Seed 002: a loopback request/response receive loop, allocate-per-call vs pooled buffers and spin vs blocking waits, in CPU time and allocations per receive.",
        Order: 30);

    public static WebApplicationBuilder AddReceive(this WebApplicationBuilder builder)
    {
        builder.Services.AddDeclaredSettings<ReceiveLimits, ReceiveLimitsValidator>(builder.Configuration, ReceiveLimits.SectionName);
        builder.Services.AddSingleton<ReceiveParameters>();
        return builder;
    }

    public static IEndpointRouteBuilder MapReceive(this IEndpointRouteBuilder endpoints)
    {
        var group = endpoints.MapGroup("/api/receive").WithApiTag(Tag);

        foreach (var variant in ReceiveVariant.All)
        {
            group.MapGet($"/{variant.Name}", (ReceiveRunQuery query, ReceiveParameters parameters, CancellationToken cancellationToken) => RunAsync(variant, parameters, query, cancellationToken))
                .WithName($"Receive{string.Concat(variant.Name.Split('-').Select(w => char.ToUpperInvariant(w[0]) + w[1..]))}")
                .WithSummary($"Seed 002, {variant.Description}.")
                .WithDescription(
                    "A sender thread writes `messages` messages of `messageBytes` over a loopback TCP connection; a receiver thread takes each with a timeout of `timeoutMs`. " +
                    "Per receive: CPU time of the receiving thread, bytes it allocated and wall time; received and out-of-order counts check nothing was lost.")
                .WithQueryParameters<ReceiveParameters>(parameters => parameters.Run);
        }

        group.MapGet("/compare", (ReceiveCompareQuery query, ReceiveParameters parameters, CancellationToken cancellationToken) => CompareAsync(parameters, query, cancellationToken))
            .WithName("ReceiveCompare")
            .WithSummary("Seed 002's row: all four receive variants alternated, medians, per-call / preallocated ratios beside the seed's 13,142 -> 2,697 ticks (4.9x), and a verdict.")
            .WithDescription(
                "Warms each variant up on up to 1000 messages, then runs them `repeat` times, rotating which goes first. " +
                "cpuRatio = per-call / preallocated CPU per receive; allocating and spinning change one cause each, so their ratios say which cause carries the effect. " +
                "Try intervalMs=1 to see the spinning timeout path when messages are sparse.")
            .WithQueryParameters<ReceiveParameters>(parameters => parameters.Compare);

        // Any other name: a 400 that lists the variants (the literal routes above take precedence).
        group.MapGet("/{variant}", (string variant) => UnknownVariant(variant)).ExcludeFromDescription();
        return endpoints;
    }

    private static async Task<Results<Ok<ReceiveResult>, ValidationProblem>> RunAsync(
        ReceiveVariant variant, ReceiveParameters parameters, ReceiveRunQuery query, CancellationToken cancellationToken)
    {
        var plan = new ReceivePlan(query.Messages, query.MessageBytes, query.TimeoutMs, query.IntervalMs);
        return parameters.Refusal(plan, runs: 1) is { } refusal
            ? refusal
            : TypedResults.Ok(await ReceiveRunner.RunAsync(variant, plan, cancellationToken));
    }

    private static async Task<Results<Ok<ReceiveComparisonReport>, ValidationProblem>> CompareAsync(
        ReceiveParameters parameters, ReceiveCompareQuery query, CancellationToken cancellationToken)
    {
        var plan = new ReceivePlan(query.Messages, query.MessageBytes, query.TimeoutMs, query.IntervalMs);
        return parameters.Refusal(plan, runs: (long)query.Repeat * ReceiveVariant.All.Count) is { } refusal
            ? refusal
            : TypedResults.Ok(await ReceiveComparison.CompareAsync(plan, query.Repeat, cancellationToken));
    }

    private static ValidationProblem UnknownVariant(string variant)
    {
        var allowed = new ChoiceParameter("variant", ReceiveVariant.Names, null, "The receive variant.").AllowedRange;
        var message = $"'variant' must be {allowed}; got '{(variant.Length > 40 ? variant[..40] + "..." : variant)}'.";
        return TypedResults.ValidationProblem(
            new Dictionary<string, string[]> { ["variant"] = [message] },
            detail: message,
            title: "Unknown receive variant.");
    }

}

/// <summary>The receive queries' declarations, with ranges from the Limits section, and the limits on a request's total work.</summary>
internal sealed class ReceiveParameters(IOptions<ReceiveLimits> options)
{
    private readonly ReceiveLimits _limits = options.Value;

    private readonly IntegerParameter _messages = new("messages", 1, options.Value.MaxReceiveMessages, 100_000, "How many messages the sender writes and the receiver takes.");
    private readonly IntegerParameter _messageBytes = new(
        "messageBytes", ReceivePlan.SequenceBytes, options.Value.MaxReceiveMessageBytes, 128, "Size of each message in bytes; the first 8 carry its sequence number.");
    private readonly IntegerParameter _timeoutMs = new("timeoutMs", 1, options.Value.MaxReceiveTimeoutMs, 1000, "Each receive's timeout in milliseconds; a receive that times out is counted and tried again.");
    private readonly IntegerParameter _intervalMs = new("intervalMs", 0, 1000, 0, "The sender sleeps this long between messages; 0 sends back to back, 1 makes messages sparse.");
    private readonly IntegerParameter _repeat = new("repeat", 1, options.Value.MaxReceiveRepeat, 3, "How many times each variant runs after the warm-up; medians are reported.");

    /// <summary>In the order <see cref="ReceiveRunQuery"/> lists its members.</summary>
    public QueryParameter[] Run => [_messages, _messageBytes, _timeoutMs, _intervalMs];

    /// <summary>In the order <see cref="ReceiveCompareQuery"/> lists its members.</summary>
    public QueryParameter[] Compare => [.. Run, _repeat];

    /// <summary>The 400 when the request's total work, <paramref name="runs"/> runs of the plan, is over its limits; null when it is not.</summary>
    public ValidationProblem? Refusal(ReceivePlan plan, long runs)
    {
        var totalMessages = plan.Messages * runs;
        if (runs > 1 && totalMessages > _limits.MaxReceiveTotalMessages)
        {
            return QueryReader.Refuse(
                _messages.Name,
                $"This compare receives {Invariant(totalMessages)} messages in all ('messages' x 4 variants x 'repeat'); the limit is " +
                $"{Invariant(_limits.MaxReceiveTotalMessages)} ({SettingName.Of(ReceiveLimits.SectionName, nameof(_limits.MaxReceiveTotalMessages))}). Lower 'messages' or 'repeat'.");
        }

        var pacedMs = totalMessages * plan.IntervalMs;
        if (pacedMs > _limits.MaxReceivePacedMilliseconds)
        {
            return QueryReader.Refuse(
                _intervalMs.Name,
                $"The sender would sleep {Invariant(pacedMs)} ms in all ('messages' x 'intervalMs'{(runs > 1 ? " x 4 variants x 'repeat'" : string.Empty)}); the limit is " +
                $"{Invariant(_limits.MaxReceivePacedMilliseconds)} ms ({SettingName.Of(ReceiveLimits.SectionName, nameof(_limits.MaxReceivePacedMilliseconds))}). Lower 'messages' or 'intervalMs'.");
        }

        return null;
    }

    private static string Invariant(long value) => value.ToString(CultureInfo.InvariantCulture);
}

/// <summary>One receive run's inputs.</summary>
internal sealed record ReceiveRunQuery(int Messages, int MessageBytes, int TimeoutMs, int IntervalMs) : DeclaredQuery<ReceiveRunQuery>;

/// <summary>A receive compare's inputs: one run's, and how often each variant runs.</summary>
internal sealed record ReceiveCompareQuery(int Messages, int MessageBytes, int TimeoutMs, int IntervalMs, int Repeat) : DeclaredQuery<ReceiveCompareQuery>;
