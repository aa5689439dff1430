import EIP712
import EthereumPrimitives
import Testing

/// Generated structs of the EIP-712 spec's `Mail` and the Ronin `Order`, filled with the vectors' messages.
@Suite struct GeneratedMailAndOrderTests {
    @Test func specMail() throws {
        let domain = SpecMail.EIP712Domain(
            name: "Ether Mail", version: "1", chainId: 1,
            verifyingContract: try Address("0xCcCCccccCCCCcCCCCCCcCcCccCcCCCcCcccccccC"))
        let mail = SpecMail.Mail(
            from: SpecMail.Person(name: "Cow", wallet: try Address("0xCD2a3d9F938E13CD947Ec05AbC7FE734Df8DD826")),
            to: SpecMail.Person(name: "Bob", wallet: try Address("0xbBbBBBBbbBBBbbbBbbBbbbbBBbBbbbbBbBbbBBbB")),
            contents: "Hello, Bob!")
        try VectorCheck.expectMatches(mail, domain: domain, vector: "eip712-spec-mail")
    }

    @Test func mailWithArrays() throws {
        let domain = ArraysMail.EIP712Domain(
            name: "Ether Mail", version: "1", chainId: 1,
            verifyingContract: try Address("0xCcCCccccCCCCcCCCCCCcCcCccCcCCCcCcccccccC"))
        let from = ArraysMail.Person(
            name: "Cow",
            wallets: [
                try Address("0xCD2a3d9F938E13CD947Ec05AbC7FE734Df8DD826"),
                try Address("0xDeaDbeefdEAdbeefdEadbEEFdeadbeEFdEaDbeeF"),
            ])
        let bob = ArraysMail.Person(
            name: "Bob",
            wallets: [
                try Address("0xbBbBBBBbbBBBbbbBbbBbbbbBBbBbbbbBbBbbBBbB"),
                try Address("0xB0BdaBea57B0BDABeA57b0bdABEA57b0BDabEa57"),
                try Address("0xB0B0b0b0b0b0B000000000000000000000000000"),
            ])
        let mail = ArraysMail.Mail(from: from, to: [bob], contents: "Hello, Bob!")
        try VectorCheck.expectMatches(mail, domain: domain, vector: "metamask-v4-mail-arrays")
    }

    static let roninDomain = Result { () throws -> Ronin.EIP712Domain in
        Ronin.EIP712Domain(
            name: "MarketGateway", version: "1", chainId: 2021,
            verifyingContract: try Address("0xfff9ce5f71ca6178d3beecedb61e7eff1602950e"))
    }

    @Test func roninOrder() throws {
        let order = Ronin.Order(
            maker: try Address("0xd761024b4ef3336becd6e802884d0b986c29b35a"), kind: 1,
            assets: [
                Ronin.Asset(
                    erc: 1, addr: try Address("0x32950db2a7164ae833121501c797d79e7b79d74c"), id: 2_730_069, quantity: 0)
            ],
            expiredAt: 1_721_709_637, paymentToken: try Address("0xc99a6a985ed2cac1ef41640596c5a5f9f4e19ef5"),
            startedAt: 1_705_984_837, basePrice: 500_000_000_000_000_000, endedAt: 0, endedPrice: 0, expectedState: 0,
            nonce: 0, marketFeePercentage: 425)
        try VectorCheck.expectMatches(order, domain: try Self.roninDomain.get(), vector: "ronin-order")
    }

    @Test func roninOrderWithFiveAssets() throws {
        let assets: [(UInt8, String, UInt256)] = [
            (
                0, "0x5942f77a39d75a4eccff57528de922663ece5ecc",
                669_027_403_801_247_308_030_067_764_641_687_055_075_680_855_436_206_237_130_884
            ),
            (
                1, "0x7cbccaed7e622645930f577ee5d5efe04c0b5b11",
                1_170_601_932_410_166_202_315_619_529_806_445_296_210_051_944_701_559_397_472_735
            ),
            (
                2, "0x49e7391e3dbe9cddace8cd4b320c27466e173de9",
                438_576_918_120_197_819_631_134_378_992_517_978_726_596_029_548_667_949_461_673
            ),
            (
                0, "0x53757c6d04f19748395178498d799929ae741872",
                1_554_433_018_697_472_340_438_097_338_966_331_662_229_873_502_710_911_988_452_370
            ),
            (
                1, "0x2c711c7067cdf73609e48d74a8e476cfd58e296c",
                158_989_830_408_806_479_986_994_552_928_281_353_384_970_373_876_456_072_876_904
            ),
        ]
        let order = Ronin.Order(
            maker: try Address("0xd761024b4ef3336becd6e802884d0b986c29b35a"), kind: 0,
            assets: try assets.enumerated().map { position, asset in
                Ronin.Asset(erc: asset.0, addr: try Address(asset.1), id: asset.2, quantity: UInt256(UInt64(position)))
            },
            expiredAt: 1_721_709_637, paymentToken: try Address("0xc99a6a985ed2cac1ef41640596c5a5f9f4e19ef5"),
            startedAt: 1_705_984_837, basePrice: try UInt256(text: "0xde0b6b3a7640000"), endedAt: 0, endedPrice: 0,
            expectedState: 0, nonce: 0, marketFeePercentage: 425)
        try VectorCheck.expectMatches(
            order, domain: try Self.roninDomain.get(), vector: "ronin-order-5-assets-mixed-repr")
    }
}
