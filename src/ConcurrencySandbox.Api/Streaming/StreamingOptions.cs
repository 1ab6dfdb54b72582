using ConcurrencySandbox.Contracts.Streaming;
using ConcurrencySandbox.Experiments.Streaming;
using ConcurrencySandbox.Validation;

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

internal sealed class StreamingOptionsValidator() : DeclaredSettingsValidator<StreamingOptions>(StreamingOptions.SectionName)
{
    /// <summary>Caps the saea-pooled block (MaxClients x QueueMessages x frame bytes).</summary>
    private const long MaxPoolBytes = 1L << 30;

    private static readonly IntegerParameter Port = new("port", 0, 65_535, 0, "The loopback TCP port to stream on; 0 leaves the server off.");
    private static readonly ChoiceParameter Implementation = new("implementation", StreamingImplementations.Names, "pipelines", "How messages are sent.");
    private static readonly IntegerParameter MessageBytes = new("messageBytes", StreamProtocol.MinMessageBytes, StreamProtocol.MaxMessageBytes, 128, "Payload bytes per message.");
    private static readonly IntegerParameter IntervalMs = new("intervalMs", 1, 60_000, 100, "Every client gets one message per interval.");
    private static readonly IntegerParameter QueueMessages = new("queueMessages", 1, 10_000, 32, "Messages a client may have waiting before it is dropped.");
    private static readonly IntegerParameter MaxClients = new("maxClients", 1, 100_000, 1000, "Connections beyond this are closed at once.");

    protected override void Check(StreamingOptions options, SettingsReader reader)
    {
        reader.Read(Port, options.Port);
        reader.Read(MessageBytes, options.MessageBytes);
        reader.Read(IntervalMs, options.IntervalMs);
        reader.Read(QueueMessages, options.QueueMessages);
        reader.Read(MaxClients, options.MaxClients);
        if (!StreamingImplementations.TryParse(options.Implementation, out _))
        {
            reader.Fail(reader.NameOf(Implementation), $"{reader.NameOf(Implementation)} must be {Implementation.AllowedRange}; it is '{options.Implementation}'.");
        }

        var poolBytes = (long)options.MaxClients * options.QueueMessages * StreamProtocol.FrameBytes(options.MessageBytes);
        if (reader.IsValid && poolBytes > MaxPoolBytes)
        {
            reader.Fail(
                reader.NameOf(MaxClients),
                $"{reader.NameOf(MaxClients)} x {reader.NameOf(QueueMessages)} x (MessageBytes + {StreamProtocol.FramePrefixBytes}) is {poolBytes} bytes; " +
                $"the limit is {MaxPoolBytes}. Lower MaxClients or QueueMessages.");
        }
    }
}
