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

    public static readonly IntegerParameter PortSetting = new("port", 0, 65_535, 0, "The loopback TCP port to stream on; 0 leaves the server off.");
    public static readonly ChoiceParameter ImplementationSetting = new("implementation", StreamingImplementations.Names, "pipelines", "How messages are sent.");
    public static readonly IntegerParameter MessageBytesSetting = new("messageBytes", StreamProtocol.MinMessageBytes, StreamProtocol.MaxMessageBytes, 128, "Payload bytes per message.");
    public static readonly IntegerParameter IntervalMsSetting = new("intervalMs", 1, 60_000, 100, "Every client gets one message per interval.");
    public static readonly IntegerParameter QueueMessagesSetting = new("queueMessages", 1, 10_000, 32, "Messages a client may have waiting before it is dropped.");
    public static readonly IntegerParameter MaxClientsSetting = new("maxClients", 1, 100_000, 1000, "Connections beyond this are closed at once.");

    /// <summary>The loopback TCP port to stream on; 0 (the default) leaves the server off.</summary>
    public int Port { get; set; } = (int)PortSetting.Default!.Value;

    /// <summary>allocating, saea-pooled or pipelines.</summary>
    public string Implementation { get; set; } = ImplementationSetting.Default!;

    /// <summary>Payload bytes per message (seed 001: 128); each frame adds a 12-byte sequence number and checksum.</summary>
    public int MessageBytes { get; set; } = (int)MessageBytesSetting.Default!.Value;

    /// <summary>Every client gets one message per interval (seed 001: 100 ms).</summary>
    public int IntervalMs { get; set; } = (int)IntervalMsSetting.Default!.Value;

    /// <summary>Messages a client may have waiting; a client that falls further behind is dropped.</summary>
    public int QueueMessages { get; set; } = (int)QueueMessagesSetting.Default!.Value;

    /// <summary>Connections beyond this are closed at once; saea-pooled pre-allocates this many slots.</summary>
    public int MaxClients { get; set; } = (int)MaxClientsSetting.Default!.Value;

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

    protected override void Check(StreamingOptions options, SettingsReader reader)
    {
        reader.Read(StreamingOptions.PortSetting, options.Port);
        reader.Read(StreamingOptions.MessageBytesSetting, options.MessageBytes);
        reader.Read(StreamingOptions.IntervalMsSetting, options.IntervalMs);
        reader.Read(StreamingOptions.QueueMessagesSetting, options.QueueMessages);
        reader.Read(StreamingOptions.MaxClientsSetting, options.MaxClients);
        if (!StreamingImplementations.TryParse(options.Implementation, out _))
        {
            reader.Fail(reader.NameOf(StreamingOptions.ImplementationSetting), $"{reader.NameOf(StreamingOptions.ImplementationSetting)} must be {StreamingOptions.ImplementationSetting.AllowedRange}; it is '{options.Implementation}'.");
        }

        var poolBytes = (long)options.MaxClients * options.QueueMessages * StreamProtocol.FrameBytes(options.MessageBytes);
        if (reader.IsValid && poolBytes > MaxPoolBytes)
        {
            reader.Fail(
                reader.NameOf(StreamingOptions.MaxClientsSetting),
                $"{reader.NameOf(StreamingOptions.MaxClientsSetting)} x {reader.NameOf(StreamingOptions.QueueMessagesSetting)} x (MessageBytes + {StreamProtocol.FramePrefixBytes}) is {poolBytes} bytes; " +
                $"the limit is {MaxPoolBytes}. Lower MaxClients or QueueMessages.");
        }
    }
}
