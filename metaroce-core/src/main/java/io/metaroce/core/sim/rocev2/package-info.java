/**
 * A RoCEv2-like baseline transport for the fabric simulator: reliable-connected queue pairs with
 * go-back-N loss recovery and DCQCN rate control, driven exactly like the MetaRoCE engine
 * ({@link io.metaroce.core.sim.rocev2.RoceV2Endpoint}). Modelled and simplified features, and every
 * default with its source: {@code docs/baseline-rocev2.md}.
 */
package io.metaroce.core.sim.rocev2;
