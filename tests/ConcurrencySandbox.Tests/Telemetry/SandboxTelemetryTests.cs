using System.Text.Json;
using ConcurrencySandbox.Contracts;
using ConcurrencySandbox.Contracts.Telemetry;

namespace ConcurrencySandbox.Tests.Telemetry;

/// <summary>The contract's generic carrier of the sandbox meter's instruments, as the API writes it and the runner reads it.</summary>
public sealed class SandboxTelemetryTests
{
    [Fact]
    public void TheReadingsAreAJsonObjectOfInstrumentNameAndValueBothWays()
    {
        var readings = new SandboxTelemetry(["sandbox.a.active", "sandbox.b.done"], [3, 40]);

        var json = JsonSerializer.Serialize(readings, ContractJson.Options);
        var read = JsonSerializer.Deserialize<SandboxTelemetry>(json, ContractJson.Options);

        Assert.Equal("""{"sandbox.a.active":3,"sandbox.b.done":40}""", json);
        Assert.Equal(readings, read);
        Assert.Equal((3L, 40L), (read["sandbox.a.active"], read["sandbox.b.done"]));
    }

    [Fact]
    public void AnInstrumentTheReadingDoesNotCarryReadsAsZeroAndTheEmptyReadingAsAnEmptyObject()
    {
        var none = default(SandboxTelemetry);

        Assert.False(none.TryGetValue("sandbox.a.active", out _));
        Assert.Equal(0, none["sandbox.a.active"]);
        Assert.Equal("{}", JsonSerializer.Serialize(none, ContractJson.Options));
    }

    [Fact]
    public void MoreInstrumentsThanTheCapacityAreRefusedRatherThanDropped()
    {
        var names = Enumerable.Range(0, SandboxTelemetry.Capacity + 1).Select(i => $"sandbox.n{i}").ToArray();
        var json = "{" + string.Join(',', names.Select(n => $"\"{n}\":1")) + "}";

        Assert.Throws<ArgumentException>(() => new SandboxTelemetry(names, new long[names.Length]));
        Assert.Throws<JsonException>(() => JsonSerializer.Deserialize<SandboxTelemetry>(json, ContractJson.Options));
    }
}
