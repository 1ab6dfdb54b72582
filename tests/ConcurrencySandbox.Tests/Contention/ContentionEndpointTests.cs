using ConcurrencySandbox.Api.Contention;
using ConcurrencySandbox.Experiments.Contention;
using ConcurrencySandbox.Tests.Hosting;

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
