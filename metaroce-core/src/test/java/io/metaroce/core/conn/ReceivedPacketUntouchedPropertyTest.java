package io.metaroce.core.conn;

import static org.assertj.core.api.Assertions.assertThat;

import io.metaroce.core.PropertySeeds;
import io.metaroce.core.harness.Pair;
import io.metaroce.core.wire.Packet;
import io.metaroce.core.wire.PacketType;
import java.lang.reflect.Field;
import java.util.stream.LongStream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * An endpoint decodes received datagrams with {@code PacketCodec#decodeOwned}, which after a DATA
 * packet takes the fields DATA does not carry to be still zero at the next one: the promise is
 * that nothing but the codec writes the endpoint's received packet. This checks, after every event
 * of random lossy runs ({@link RandomConnectionRun}: SENDs, WRITEs and READs, NAKs, probes, paths
 * black-holed, failed and probed back, bundled ACKs, a close or an abort), on both sides, that a
 * received packet holding DATA has every field outside DATA's at zero, as the decode left it,
 * whatever the handlers did with it.
 */
class ReceivedPacketUntouchedPropertyTest {

    static LongStream seeds() {
        return PropertySeeds.of(8);
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void theHandlersLeaveTheFieldsOutsideDataAsTheDecodeLeftThem(long seed) {
        long[] dataSeen = {0};
        RandomConnectionRun.run(seed, 31, 25, "ReceivedPacketUntouchedPropertyTest", (pair, where) -> {
            check(pair.client(), "client", pair, where, dataSeen);
            check(pair.server(), "server", pair, where, dataSeen);
        });
        assertThat(dataSeen[0]).as("seed %d: events after which a side held a DATA packet", seed).isPositive();
    }

    private static void check(Endpoint side, String name, Pair pair, String where, long[] dataSeen) {
        Packet rx = side.receivedPacketForTest();
        if (rx.type != PacketType.DATA) {
            return;
        }
        dataSeen[0]++;
        Packet zeroed = copyOf(rx);
        zeroed.clearOutsideData();
        assertThat(rx).as("%s's received DATA packet at t=%d (%s)", name, pair.now(), where)
                .usingRecursiveComparison().isEqualTo(zeroed);
    }

    /** A packet with every public field (the arrays' contents included) of {@code p}. */
    private static Packet copyOf(Packet p) {
        Packet c = new Packet();
        try {
            for (Field f : Packet.class.getFields()) {
                if (java.lang.reflect.Modifier.isStatic(f.getModifiers())) {
                    continue;
                }
                if (f.getType() == long[].class) {
                    System.arraycopy((long[]) f.get(p), 0, (long[]) f.get(c), 0, ((long[]) f.get(p)).length);
                } else if (f.getType() == byte[].class && java.lang.reflect.Modifier.isFinal(f.getModifiers())) {
                    System.arraycopy((byte[]) f.get(p), 0, (byte[]) f.get(c), 0, ((byte[]) f.get(p)).length);
                } else {
                    f.set(c, f.get(p));
                }
            }
        } catch (IllegalAccessException e) {
            throw new AssertionError(e);
        }
        return c;
    }
}
