using ConcurrencySandbox.Api.Contention;
using ConcurrencySandbox.Contracts.Contention;
using ConcurrencySandbox.Experiments.Contention;
using ConcurrencySandbox.Tests.Hosting;
using Microsoft.Extensions.Options;

namespace ConcurrencySandbox.Tests.Contention;

/// <summary>One server, read only: each request holds its variant's critical section for a few milliseconds.</summary>
public sealed class ContentionEndpointTests(SandboxServerFixture shared) : IClassFixture<SandboxServerFixture>
{
    [Theory]
    [InlineData(MonitorLockVariant.VariantName)]
    [InlineData(SemaphoreAsyncVariant.VariantName)]
    public async Task ARequestReportsItsVariantHoldAndThePoolsThreads(string variant)
    {
        var answer = await shared.Client.GetOkAsync<ContentionAnswer>($"/api/contention/{variant}?holdMs=5");

        Assert.Equal((variant, 5), (answer.Variant, answer.HoldMs));
        Assert.True(answer.HeldMs > 0, $"held {answer.HeldMs} ms");
        Assert.True(answer.WaitedMs >= 0, $"waited {answer.WaitedMs} ms");
        Assert.True(answer.PoolThreadCount > 0, $"{answer.PoolThreadCount} pool threads");
    }

    [Fact]
    public async Task WithoutHoldMsTheDeclaredDefaultIsHeld()
    {
        var answer = await shared.Client.GetOkAsync<ContentionAnswer>("/api/contention/semaphore-async");

        Assert.Equal(ContentionVariant.DefaultHoldMs, answer.HoldMs);
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
