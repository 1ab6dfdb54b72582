using ConcurrencySandbox.Api.Swagger;
using ConcurrencySandbox.Contracts.Contention;
using ConcurrencySandbox.Contracts.ThreadPools;
using ConcurrencySandbox.Experiments.Contention;
using ConcurrencySandbox.Validation;
using Microsoft.AspNetCore.Http.HttpResults;
using Microsoft.Extensions.Options;

namespace ConcurrencySandbox.Api.Contention;

/// <summary>Seeds 000 and 003 on a lock: one critical section per variant, a blocking Monitor vs SemaphoreSlim.WaitAsync.</summary>
public static class ContentionEndpoints
{
    private static readonly ApiTag Tag = new(
        "Contention",
        "Seeds 003 and 000 on a lock: every request holds one critical section for holdMs; C# lock blocks a pool thread per waiter, SemaphoreSlim.WaitAsync holds none.",
        Order: 25);

    private static readonly ChoiceParameter Variant = new("variant", ContentionVariants.Names, null, "The contention variant.");

    /// <summary>The limits, the query declarations and the critical sections, one per variant: every request to a variant contends for the same one.</summary>
    public static WebApplicationBuilder AddContention(this WebApplicationBuilder builder)
    {
        builder.Services.AddDeclaredSettings<ContentionLimits, ContentionLimitsValidator>(builder.Configuration, ContentionLimits.SectionName);
        builder.Services.AddSingleton<ContentionParameters>();
        builder.Services.AddSingleton<ContentionVariant, MonitorLockVariant>();
        builder.Services.AddSingleton<ContentionVariant, SemaphoreAsyncVariant>();
        builder.Services.AddSingleton<ContentionSections>();
        return builder;
    }

    public static IEndpointRouteBuilder MapContention(this IEndpointRouteBuilder endpoints)
    {
        var group = endpoints.MapGroup("/api/contention").WithApiTag(Tag);

        foreach (var name in ContentionVariants.Names)
        {
            group.MapGet($"/{name}", (ContentionQuery query, ContentionSections sections, CancellationToken cancellationToken) => EnterAsync(sections[name], query.HoldMs, cancellationToken))
                .WithName($"Contention{string.Concat(name.Split('-').Select(w => char.ToUpperInvariant(w[0]) + w[1..]))}")
                .WithSummary($"Seeds 000/003 on a lock, {ContentionVariant.Descriptions[name]}.")
                .WithDescription(
                    "Enters the variant's one critical section, holds it for `holdMs`, leaves. Returns the wait and hold in ms, " +
                    "the runtime's lock contention count during the request (process-wide) and the pool's thread count afterwards.")
                .WithQueryParameters<ContentionParameters>(parameters => parameters.Enter);
        }

        // Any other name: a 400 that lists the variants (the literal routes above take precedence).
        group.MapGet("/{variant}", (string variant) => QueryReader.Refuse(Variant.Name, Variant.Rejection(variant))).ExcludeFromDescription();
        return endpoints;
    }

    private static async Task<Ok<ContentionAnswer>> EnterAsync(ContentionVariant variant, int holdMs, CancellationToken cancellationToken)
    {
        var contentionBefore = Monitor.LockContentionCount;
        var timing = await variant.EnterAndHoldAsync(holdMs, cancellationToken);
        return TypedResults.Ok(new ContentionAnswer(
            variant.Name, holdMs, timing.WaitedMs, timing.HeldMs, Monitor.LockContentionCount - contentionBefore, ThreadPoolSnapshot.Capture().ThreadCount));
    }
}

/// <summary>The contention query's declarations, with the hold's cap from the Limits section.</summary>
internal sealed class ContentionParameters(IOptions<ContentionLimits> limits)
{
    /// <summary>In the order <see cref="ContentionQuery"/> lists its members.</summary>
    public QueryParameter[] Enter { get; } =
    [
        new IntegerParameter(
            "holdMs", ContentionVariants.MinHoldMs, limits.Value.MaxContentionHoldMs, ContentionVariants.DefaultHoldMs, "How long the request holds the critical section once inside."),
    ];
}

/// <summary>The critical sections by variant name, one each for the app's life.</summary>
internal sealed class ContentionSections(IEnumerable<ContentionVariant> variants)
{
    private readonly Dictionary<string, ContentionVariant> _byName = variants.ToDictionary(v => v.Name);

    public ContentionVariant this[string name] => _byName[name];
}

/// <summary>One request's input: how long it holds the critical section.</summary>
internal sealed record ContentionQuery(int HoldMs) : DeclaredQuery<ContentionQuery>;
