using ConcurrencySandbox.Experiments.Streaming;
using Microsoft.Extensions.Options;

namespace ConcurrencySandbox.Api.Streaming;

/// <summary>
/// Seed 001's streaming server. Section "Streaming" (env: Streaming__Port, Streaming__Implementation,
/// Streaming__MessageBytes, Streaming__IntervalMs, Streaming__QueueMessages, Streaming__MaxClients).
/// </summary>
public sealed class StreamingOptions
{
    public const string SectionName = "Streaming";

    /// <summary>The loopback TCP port to stream on; 0 (the default) leaves the server off.</summary>
    public int Port { get; set; }

    /// <summary>allocating, saea-pooled or pipelines.</summary>
    public string Implementation { get; set; } = "pipelines";

    /// <summary>Payload bytes per message (seed 001: 128); each frame adds a 12-byte sequence number and checksum.</summary>
    public int MessageBytes { get; set; } = 128;

    /// <summary>Every client gets one message per interval (seed 001: 100 ms).</summary>
    public int IntervalMs { get; set; } = 100;

    /// <summary>Messages a client may have waiting; a client that falls further behind is dropped.</summary>
    public int QueueMessages { get; set; } = 32;

    /// <summary>Connections beyond this are closed at once; saea-pooled pre-allocates this many slots.</summary>
    public int MaxClients { get; set; } = 1000;

    public StreamingServerSettings ToSettings()
    {
        StreamingImplementations.TryParse(Implementation, out var implementation);
        return new StreamingServerSettings(implementation, MessageBytes, IntervalMs, QueueMessages, MaxClients);
    }
}

internal sealed class StreamingOptionsValidator : IValidateOptions<StreamingOptions>
{
    /// <summary>Caps the saea-pooled block (MaxClients x QueueMessages x frame bytes).</summary>
    private const long MaxPoolBytes = 1L << 30;

    public ValidateOptionsResult Validate(string? name, StreamingOptions options)
    {
        (string Name, long Value, long Min, long Max)[] ranges =
        [
            (nameof(options.Port), options.Port, 0, 65_535),
            (nameof(options.MessageBytes), options.MessageBytes, StreamProtocol.MinMessageBytes, StreamProtocol.MaxMessageBytes),
            (nameof(options.IntervalMs), options.IntervalMs, 1, 60_000),
            (nameof(options.QueueMessages), options.QueueMessages, 1, 10_000),
            (nameof(options.MaxClients), options.MaxClients, 1, 100_000),
        ];
        var failures = ranges
            .Where(setting => setting.Value < setting.Min || setting.Value > setting.Max)
            .Select(setting => $"{Setting(setting.Name)} must be from {setting.Min} to {setting.Max}; it is {setting.Value}.")
            .ToList();
        if (!StreamingImplementations.TryParse(options.Implementation, out _))
        {
            failures.Add($"{Setting(nameof(options.Implementation))} must be one of {string.Join(", ", StreamingImplementations.Names)}; it is '{options.Implementation}'.");
        }

        var poolBytes = (long)options.MaxClients * options.QueueMessages * StreamProtocol.FrameBytes(options.MessageBytes);
        if (failures.Count == 0 && poolBytes > MaxPoolBytes)
        {
            failures.Add(
                $"{Setting(nameof(options.MaxClients))} x {Setting(nameof(options.QueueMessages))} x (MessageBytes + {StreamProtocol.FramePrefixBytes}) " +
                $"is {poolBytes} bytes; the limit is {MaxPoolBytes}. Lower MaxClients or QueueMessages.");
        }

        return failures.Count == 0 ? ValidateOptionsResult.Success : ValidateOptionsResult.Fail(failures);
    }

    private static string Setting(string name) => SettingName.Of(StreamingOptions.SectionName, name);
}
