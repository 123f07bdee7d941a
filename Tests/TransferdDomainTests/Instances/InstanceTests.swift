import Testing
import TransferdDomain

@Suite struct InstanceTests {
    @Test(arguments: [(false, nil), (true, "i1")] as [(Bool, String?)])
    func aStartFreesEveryLeaseOfADatabaseItOwnsAndOnlyItsOwnOfOneItShares(sharesDatabase: Bool, owner: String?) {
        // setup
        let instance = Instance(id: "i1", leaseTimeout: 15, sharesDatabase: sharesDatabase)

        // verify: nil names every owner
        #expect(instance.leftoverLeasesOwner == owner)
    }
}
