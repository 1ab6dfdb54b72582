using ConcurrencySandbox.LoadTests.Diagnostics;
using ConcurrencySandbox.LoadTests.Engine;

namespace ConcurrencySandbox.LoadTests.Tests.Diagnostics;

/// <summary>
/// When the peak's stack sample is read under the load to be taken again (VariantObserver.MayLookAgain): only when the
/// service held a good share of the load's requests in flight, so a pool thread could be holding one; otherwise its trace
/// is read after the load, where its conversion takes no core from the service.
/// </summary>
public sealed class StackResampleTests
{
    private static readonly VariantKey Key = new("target");

    [Fact]
    public void AFastEndpointWhoseRequestsSpendTheirTimeOutsideTheServiceIsNotSampledAgain()
    {
        // compute/sync?cycles=1 at 16 users (2026-11-29): 45,000 requests/s of 0.35 ms each, 0-3 of them in the API.
        var interval = new IntervalRow(Key, 10, "users", 16, 45_000, TestStats.Uniform(90_000, 0.35));

        Assert.False(VariantObserver.MayLookAgain([Held(1), Held(3)], interval));
    }

    [Fact]
    public void AServiceHoldingTheLoadsRequestsIsSampledAgainAndAnUnknownOneAsBefore()
    {
        // /quotes at 2 users, 500 ms each: both requests inside the service.
        var blocking = new IntervalRow(Key, 10, "users", 2, 4, TestStats.Uniform(4, 500));

        Assert.True(VariantObserver.MayLookAgain([Held(0), Held(2)], blocking));
        // Not known: no current-requests counter (a service without ASP.NET Core's hosting counters), or no interval answered.
        Assert.True(VariantObserver.MayLookAgain([new RuntimeSample(0, 0, new Dictionary<string, double>())], blocking));
        Assert.True(VariantObserver.MayLookAgain([Held(0)], new IntervalRow(Key, 1, "users", 2, 0, LatencyStats.Empty)));
        Assert.True(VariantObserver.MayLookAgain([Held(0)], null));
    }

    [Fact]
    public void TheShareIsHalfTheRequestsInFlightByLittlesLawWhateverTheRateAndLatency()
    {
        // Seeded: closed loads of 1-64 users whose requests take 0.1 ms to 10 s and spend a random share of it in the service.
        var random = new Random(42);
        for (var run = 0; run < 500; run++)
        {
            var users = random.Next(1, 65);
            var meanMs = Math.Pow(10, -1 + (random.NextDouble() * 5));
            var inService = random.Next(0, users + 1);
            var interval = new IntervalRow(Key, 10, "users", users, users * 1000 / meanMs, TestStats.Uniform(1_000, meanMs));
            if (inService * 2 != users)
            {
                Assert.Equal(inService * 2 > users, VariantObserver.MayLookAgain([Held(0), Held(inService)], interval));
            }
        }
    }

    private static RuntimeSample Held(double requests) => new(0, 0, new Dictionary<string, double> { [RuntimeObserver.CurrentRequests] = requests });
}
