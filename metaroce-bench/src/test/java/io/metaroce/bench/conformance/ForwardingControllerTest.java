package io.metaroce.bench.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import io.metaroce.core.cc.CongestionController;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import org.junit.jupiter.api.Test;

/** The suite's broken controllers break only the rule they name: their base forwards every call. */
class ForwardingControllerTest {
    @Test
    void everyMethodOfTheInterfaceIsForwardedTheDefaultsIncluded() throws NoSuchMethodException {
        for (Method m : CongestionController.class.getMethods()) {
            if (Modifier.isStatic(m.getModifiers())) {
                continue;
            }
            Method own = ForwardingController.class.getDeclaredMethod(m.getName(), m.getParameterTypes());
            assertThat(own.getDeclaringClass()).as("%s forwarded", m.getName()).isEqualTo(ForwardingController.class);
        }
    }
}
