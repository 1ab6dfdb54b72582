using System.Diagnostics;
using ConcurrencySandbox.Api.Contention;
using ConcurrencySandbox.Contracts.Contention;
using ConcurrencySandbox.Experiments.Contention;
using ConcurrencySandbox.Tests.Hosting;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Options;

namespace ConcurrencySandbox.Tests.Contention;

/// <summary>One server, read only: each request holds its variant's critical section for a few milliseconds.</summary>
public sealed class ContentionEndpointTests(SandboxServerFixture shared) : IClassFixture<SandboxServerFixture>
{
    [Theory]
    [InlineData(ContentionVariants.MonitorLock)]
    [InlineData(ContentionVariants.SemaphoreAsync)]
    public async Task ARequestReportsItsVariantHoldAndThePoolsThreads(string variant)
    {
        var answer = await shared.Client.GetOkAsync<ContentionAnswer>($"/api/contention/{variant}?holdMs=5");

        Assert.Equal((variant, 5), (answer.Variant, answer.HoldMs));
        Assert.True(answer.HeldMs > 0, $"held {answer.HeldMs} ms");
    }

    [Theory]
    [InlineData(ContentionVariants.MonitorLock)]
    [InlineData(ContentionVariants.SemaphoreAsync)]
    public async Task ARequestQueuedBehindAHolderWaitsUntilTheHolderLeavesAndSaysHowLong(string variant)
    {
        var section = shared.Server.Services.GetServices<ContentionVariant>().Single(v => v.Name == variant);
        using var holder = new CancellationTokenSource();
        // The lock variant blocks the thread that holds it, so the test holds it from a thread of its own.
        var held = Task.Run(() => section.EnterAndHoldAsync(ContentionVariants.MaxHoldMs, holder.Token).AsTask());
        await Eventually.TrueAsync(() => section.Holding == 1, "the test holds the critical section");

        var request = shared.Client.GetOkAsync<ContentionAnswer>($"/api/contention/{variant}?holdMs=5");
        await Eventually.TrueAsync(() => section.Waiting == 1, "the request waits for the critical section");
        var waitingSeen = Stopwatch.GetTimestamp();
        await Task.Delay(50);
        Assert.False(request.IsCompleted, "the request answered while the test held the critical section");
        var gapMs = Stopwatch.GetElapsedTime(waitingSeen).TotalMilliseconds;
        await holder.CancelAsync();
        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => held);
        var answer = await request;

        // It was already waiting when the gap began and could not enter before the holder left after it.
        Assert.True(answer.WaitedMs >= gapMs, $"waited {answer.WaitedMs} ms, queued for at least {gapMs} ms");
        if (variant == ContentionVariants.MonitorLock)
        {
            Assert.True(answer.LockContentionDelta >= 1, "a request blocked on the Monitor counts as lock contention");
        }
    }

    [Fact]
    public async Task WithoutHoldMsTheDeclaredDefaultIsHeld()
    {
        var answer = await shared.Client.GetOkAsync<ContentionAnswer>("/api/contention/semaphore-async");

        Assert.Equal(ContentionVariants.DefaultHoldMs, answer.HoldMs);
    }

    [Fact]
    public async Task TheHoldCapComesFromTheLimitsSection()
    {
        await using var server = await SandboxServer.StartAsync("Limits:MaxContentionHoldMs=50");

        using var allowed = await server.Client.GetAsync("/api/contention/semaphore-async?holdMs=50");
        using var tooLong = await server.Client.GetAsync("/api/contention/semaphore-async?holdMs=51");

        Assert.True(allowed.IsSuccessStatusCode);
        Assert.Contains("from 1 to 50;", await ProblemAssert.IsBadRequestNamingAsync(tooLong, "holdMs"), StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("0")]
    [InlineData("10001")]
    public async Task AHoldCapOutsideTheExperimentsBoundStopsStartUpNamingTheSetting(string cap)
    {
        var failure = await Assert.ThrowsAsync<OptionsValidationException>(() => SandboxServer.StartAsync($"Limits:MaxContentionHoldMs={cap}"));

        Assert.Contains("Limits__MaxContentionHoldMs", failure.Message, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("/api/contention/lock?holdMs=0", "holdMs", "from 1 to 10000")]
    [InlineData("/api/contention/lock?holdMs=10001", "holdMs", "from 1 to 10000")]
    [InlineData("/api/contention/semaphore-async?holdMs=1.5", "holdMs", "from 1 to 10000")]
    [InlineData("/api/contention/semaphore-async?holdMs=long", "holdMs", "from 1 to 10000")]
    [InlineData("/api/contention/mutex", "variant", "one of lock, semaphore-async")]
    public async Task BadInputGetsProblemDetailsNamingTheParameterAndItsRange(string url, string parameter, string range)
    {
        using var response = await shared.Client.GetAsync(url);

        var detail = await ProblemAssert.IsBadRequestNamingAsync(response, parameter);
        Assert.Contains(range, detail, StringComparison.Ordinal);
    }
}
