using System.Runtime.CompilerServices;
using System.Text.Json;
using System.Text.Json.Serialization;

namespace ConcurrencySandbox.Contracts.Telemetry;

/// <summary>
/// The sandbox meter's instruments as the telemetry reports them: each instrument's value by its name
/// ("sandbox.work.units.active"), in JSON an object of name: value. Whatever instruments the slices declare, this type
/// carries them without naming them. A value type with room for <see cref="Capacity"/> values and a names list shared
/// by every reading of the same instruments, so a snapshot that carries it is taken and kept without allocating.
/// </summary>
[JsonConverter(typeof(SandboxTelemetryJsonConverter))]
public readonly struct SandboxTelemetry : IEquatable<SandboxTelemetry>
{
    /// <summary>The most instruments one reading carries.</summary>
    public const int Capacity = 16;

    private readonly IReadOnlyList<string>? _names;
    private readonly Values _values;

    /// <param name="names">The instruments' names; the caller keeps it unchanged, as readings share it.</param>
    /// <param name="values">Each named instrument's value, in the same order.</param>
    public SandboxTelemetry(IReadOnlyList<string> names, ReadOnlySpan<long> values)
    {
        if (names.Count != values.Length || names.Count > Capacity)
        {
            throw new ArgumentException($"{names.Count} names for {values.Length} values; a reading carries at most {Capacity}.", nameof(values));
        }

        var copy = default(Values);
        values.CopyTo(copy);
        _names = names;
        _values = copy;
    }

    /// <summary>The instruments read, in order.</summary>
    public IReadOnlyList<string> Names => _names ?? [];

    /// <summary>The named instrument's value; 0 when this reading does not carry it (the runner's own observer reads none).</summary>
    public long this[string name] => TryGetValue(name, out var value) ? value : 0;

    public bool TryGetValue(string name, out long value)
    {
        for (var i = 0; i < Names.Count; i++)
        {
            if (string.Equals(Names[i], name, StringComparison.Ordinal))
            {
                value = _values[i];
                return true;
            }
        }

        value = 0;
        return false;
    }

    public static bool operator ==(SandboxTelemetry left, SandboxTelemetry right) => left.Equals(right);

    public static bool operator !=(SandboxTelemetry left, SandboxTelemetry right) => !left.Equals(right);

    public bool Equals(SandboxTelemetry other) =>
        Names.SequenceEqual(other.Names) && ((ReadOnlySpan<long>)_values)[..Names.Count].SequenceEqual(((ReadOnlySpan<long>)other._values)[..other.Names.Count]);

    public override bool Equals(object? obj) => obj is SandboxTelemetry other && Equals(other);

    public override int GetHashCode() => Names.Count;

    [InlineArray(Capacity)]
    private struct Values
    {
        private long _first;
    }
}

/// <summary>Writes and reads <see cref="SandboxTelemetry"/> as a JSON object of instrument name: value.</summary>
public sealed class SandboxTelemetryJsonConverter : JsonConverter<SandboxTelemetry>
{
    public override SandboxTelemetry Read(ref Utf8JsonReader reader, Type typeToConvert, JsonSerializerOptions options)
    {
        if (reader.TokenType != JsonTokenType.StartObject)
        {
            throw new JsonException($"The sandbox telemetry is a JSON object of instrument name: value, not a {reader.TokenType}.");
        }

        var names = new List<string>();
        Span<long> values = stackalloc long[SandboxTelemetry.Capacity];
        while (reader.Read() && reader.TokenType == JsonTokenType.PropertyName)
        {
            if (names.Count == SandboxTelemetry.Capacity)
            {
                throw new JsonException($"The sandbox telemetry carries more than {SandboxTelemetry.Capacity} instruments.");
            }

            names.Add(reader.GetString()!);
            reader.Read();
            values[names.Count - 1] = reader.GetInt64();
        }

        return new SandboxTelemetry(names, values[..names.Count]);
    }

    public override void Write(Utf8JsonWriter writer, SandboxTelemetry value, JsonSerializerOptions options)
    {
        writer.WriteStartObject();
        foreach (var name in value.Names)
        {
            writer.WriteNumber(name, value[name]);
        }

        writer.WriteEndObject();
    }
}
